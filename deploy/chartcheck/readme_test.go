package chartcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	corev1 "k8s.io/api/core/v1"
)

// docs/operations.md's "Running in production" site file, on top of the production
// overlay, renders a complete installation that uses what it names.
func TestReadmeSiteValues(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(chartDir, "..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)`my-site.yaml`.*?```yaml\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("docs/operations.md has no my-site.yaml example")
	}
	site, err := chartutil.ReadValues(block[1])
	if err != nil {
		t.Fatalf("the README's my-site.yaml: %v", err)
	}
	r := mustRender(t, overlay(production(t), site.AsMap()))
	for _, svc := range services {
		d := deployment(t, r, svc)
		if img := d.Spec.Template.Spec.Containers[0].Image; !regexp.MustCompile(`^registry\.example\.com/`).MatchString(img) {
			t.Errorf("%s: image %s is not from the README's registry", svc, img)
		}
		if cm := configMap(t, r, svc); cm.Data["DOCEVAL_BLOB_URL"] != "s3://doceval-uploads?region=eu-central-1" {
			t.Errorf("%s: blob URL %q", svc, cm.Data["DOCEVAL_BLOB_URL"])
		}
		// Each service as its own login user; the owner's connection is the migration's.
		if ref := secretRef(envVar(d, "DATABASE_URL")); ref == nil || ref.Name != "doceval-db-"+svc || ref.Key != "uri" {
			t.Errorf("%s: DATABASE_URL from %+v, want doceval-db-%s/uri", svc, ref, svc)
		}
	}
	if ref := migrationDatabaseRef(t, r); ref.Name != "doceval-db-app" || ref.Key != "uri" {
		t.Errorf("migration: DATABASE_URL from %+v, want doceval-db-app/uri", ref)
	}
}

func secretRef(e *corev1.EnvVar) *corev1.SecretKeySelector {
	if e == nil || e.ValueFrom == nil {
		return nil
	}
	return e.ValueFrom.SecretKeyRef
}
