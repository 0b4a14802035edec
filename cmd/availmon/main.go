// Command availmon serves the availmon API for the apps, locations and
// backends of a YAML configuration file.
//
//	availmon -config availmon.yaml [-listen 127.0.0.1:8080]
//	availmon -config availmon.yaml -check-config
//	availmon -version
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}
