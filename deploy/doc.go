// Package deploy holds the container images and (with the Kubernetes issue) the Helm
// chart; its tests check them without a container engine.
package deploy
