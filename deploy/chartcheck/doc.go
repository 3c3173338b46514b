// Package chartcheck checks the Helm chart in deploy/helm/doceval without a cluster: its
// tests render the chart with the Helm SDK for the default and the production values,
// decode every rendered object strictly into its Kubernetes API type (a misspelt or
// misplaced field fails), and assert what the services need to run safely: probes on
// the right ports, resources, a locked-down security context, a grace period longer
// than the drain, the migration hook and its Secret, autoscaling and disruption
// budgets, and every setting the Go services read wired into the pods.
//
// It is its own module so that Helm and the Kubernetes API types stay out of the main
// module's dependencies.
package chartcheck
