// Package config reads the availmon binary's YAML configuration file and
// turns it into availmon.Options.
//
//	cfg, err := config.Load("availmon.yaml", os.LookupEnv)
//	if err != nil {
//		// err joins every problem found, each "availmon.yaml:LINE: message"
//	}
//	opts, err := cfg.Options(logger)
//	m, err := availmon.New(opts)
//
// The file is strict: unknown keys, duplicate names, references to locations
// or backends that do not exist, and values out of range are errors that name
// the line they are on, and all of them are reported at once. `${VAR}` in a
// value is replaced from the environment (an unset variable is an error) and
// `$$` stands for a literal `$`. Replacement happens on the parsed values, not
// on the text, so an environment value can never change the file's structure.
package config
