// Package deploy holds the checks of availmon's deployment files: the Helm
// chart (helm/availmon), the container image (the Dockerfile at the top of
// the source), the systemd unit (systemd/) and the release program
// (release/). It is a module of its own so that Helm's and Kubernetes'
// modules, which only these checks need, never enter the module graph of a
// program that embeds availmon. It has no code to import: run its tests.
//
//	cd deploy && go test ./...
package deploy
