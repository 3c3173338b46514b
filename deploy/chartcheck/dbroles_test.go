package chartcheck

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// migrationDatabaseRef is where the migration Job reads its DATABASE_URL.
func migrationDatabaseRef(t *testing.T, r *rendered) *corev1.SecretKeySelector {
	t.Helper()
	job := named[*batchv1.Job](r, "doceval-migrate")
	if job == nil {
		t.Fatal("no migration Job")
	}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "DATABASE_URL" {
			if ref := secretRef(&e); ref != nil {
				return ref
			}
		}
	}
	t.Fatal("the migration Job has no DATABASE_URL from a Secret")
	return nil
}

// Each service connects as its own login user when database.services names one
// (inline: a key of the chart's Secret; or an existing Secret), while the migration
// keeps the owner's connection; a service without one falls back to the owner's.
func TestServiceDatabaseConnections(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(defaults(), set(
		"database.url=postgres://owner:o@db:5432/doceval",
		"database.services.api.url=postgres://api:a@db:5432/doceval",
		"database.services.dispatcher.existingSecret.name=dispatcher-db",
		"database.services.dispatcher.existingSecret.key=uri",
	)))
	secret := named[*corev1.Secret](r, "doceval")
	if secret == nil {
		t.Fatal("no chart Secret")
	}
	if got := string(secret.Data["DATABASE_URL_API"]); got != "postgres://api:a@db:5432/doceval" {
		t.Errorf("the Secret's DATABASE_URL_API is %q", got)
	}
	for svc, want := range map[string]string{
		"api": "doceval/DATABASE_URL_API", "dispatcher": "dispatcher-db/uri",
		"ingest": "doceval/DATABASE_URL", "evaluator": "doceval/DATABASE_URL", "console": "doceval/DATABASE_URL",
	} {
		ref := secretRef(envVar(deployment(t, r, svc), "DATABASE_URL"))
		if ref == nil || ref.Name+"/"+ref.Key != want {
			t.Errorf("%s: DATABASE_URL from %+v, want %s", svc, ref, want)
		}
	}
	ref := migrationDatabaseRef(t, r)
	hook := named[*corev1.Secret](r, ref.Name)
	if hook == nil || string(hook.Data[ref.Key]) != "postgres://owner:o@db:5432/doceval" {
		t.Errorf("the migration does not connect as the owner: %+v", ref)
	}
	// The migration's Secret holds the owner's connection alone.
	for _, s := range all[*corev1.Secret](r) {
		for k, v := range s.Data {
			if s.Name != "doceval" && strings.Contains(string(v), "api:a@") {
				t.Errorf("the api's connection in Secret %s/%s", s.Name, k)
			}
		}
	}
}

// database.requireServiceRoles refuses an installation in which a service would
// connect as the owner.
func TestRequireServiceRoles(t *testing.T) {
	t.Parallel()
	vals := overlay(defaults(), set("database.requireServiceRoles=true"))
	for _, svc := range services {
		if svc != "ingest" {
			vals = overlay(vals, set("database.services."+svc+".url=postgres://"+svc+"@db/doceval"))
		}
	}
	_, err := render(t, vals)
	if err == nil || !strings.Contains(err.Error(), "database.services.ingest") {
		t.Fatalf("render without ingest's own connection: %v", err)
	}
	mustRender(t, overlay(vals, set("database.services.ingest.url=postgres://ingest@db/doceval")))
}
