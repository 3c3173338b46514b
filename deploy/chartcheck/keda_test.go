package chartcheck

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scaledObject mirrors the part of KEDA's ScaledObject (keda.sh/v1alpha1) that the chart
// sets. KEDA's Go API types live in the operator's module (github.com/kedacore/keda/v2),
// which would pull the whole operator and its scalers' clients into this module; a
// local mirror decoded strictly fails on a misspelt or misplaced field just the same,
// for the fields the chart uses. A field the chart starts using must be added here,
// checked against https://keda.sh/docs/latest/reference/scaledobject-spec/.
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion,omitempty"`
			Kind       string `json:"kind,omitempty"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		PollingInterval *int32        `json:"pollingInterval,omitempty"`
		CooldownPeriod  *int32        `json:"cooldownPeriod,omitempty"`
		MinReplicaCount *int32        `json:"minReplicaCount,omitempty"`
		MaxReplicaCount *int32        `json:"maxReplicaCount,omitempty"`
		Triggers        []kedaTrigger `json:"triggers"`
	} `json:"spec"`
}

// kedaTrigger is one scaler of a ScaledObject. Its metadata is a string map in KEDA's
// API too, so strict decoding cannot see a misspelt key: the tests compare the keys
// with natsJetStreamMetadata.
type kedaTrigger struct {
	Type     string            `json:"type"`
	Name     string            `json:"name,omitempty"`
	Metadata map[string]string `json:"metadata"`
}

// prometheusMetadata are the prometheus scaler's parameters that the chart may set
// (https://keda.sh/docs/latest/scalers/prometheus/).
var prometheusMetadata = []string{
	"serverAddress", "query", "threshold", "activationThreshold", "namespace", "ignoreNullValues", "unsafeSsl",
}

// checkMetadataKeys fails on a trigger parameter that its scaler does not have.
func checkMetadataKeys(t *testing.T, svc string, tr kedaTrigger, known []string) {
	t.Helper()
	for k := range tr.Metadata {
		if !slices.Contains(known, k) {
			t.Errorf("%s: unknown %s parameter %q", svc, tr.Type, k)
		}
	}
}

// natsJetStreamMetadata are the nats-jetstream scaler's parameters
// (https://keda.sh/docs/latest/scalers/nats-jetstream/).
var natsJetStreamMetadata = []string{
	"natsServerMonitoringEndpoint", "account", "stream", "consumer",
	"lagThreshold", "activationLagThreshold", "useHttps",
}
