package chartcheck

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
)

// maxUnavailable 0 is a real setting (no voluntary disruption at all), not "unset".
func TestPDBMaxUnavailableZero(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(defaults(), set("api.pdb.maxUnavailable=0")))
	pdb := named[*policyv1.PodDisruptionBudget](r, "doceval-api")
	if pdb == nil || pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 0 || pdb.Spec.MinAvailable != nil {
		t.Fatalf("api PDB %+v, want maxUnavailable 0", pdb)
	}
	if other := named[*policyv1.PodDisruptionBudget](r, "doceval-ingest"); other == nil || other.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("ingest PDB %+v, want the default maxUnavailable 1", other)
	}
}
