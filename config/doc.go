// Package config reads the availmon binary's YAML configuration file and
// turns it into availmon.Options, so that a Go service that embeds availmon
// accepts the same file as the binary.
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
//
// To keep the state across restarts as the binary does, open the storage
// section's directory and build the options with it:
//
//	store, err := cfg.Storage.Open(logger)
//	opts, err := cfg.OptionsWithStore(store, logger)
//
// A Reloader reads the file again and applies it to the running Monitor, on
// whatever the caller chooses: the binary reloads on SIGHUP and, with
// -web.enable-reload, on a signed POST /-/reload (availmon.Options.Reload).
//
// Summary and CheckDiscovery are what `availmon -check-config` and
// `-check-config -online` print.
package config
