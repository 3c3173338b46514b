package partnercli

import (
	"context"

	"github.com/doceval/doceval/gen/client"
)

func init() {
	groups["templates"] = group{summary: "list and inspect evaluation templates", cmds: map[string]command{
		"list": templatesList,
		"get":  templatesGet,
	}}
}

func templatesList(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("templates list")
	if _, err := positionals(fs, args); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	tpls, err := collect(c.ListTemplates(ctx, nil), 0)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(tpls)
	}
	t := a.table("ID", "KEY", "NAME", "REVISION", "DEFAULT", "BUILTIN", "ARCHIVED")
	for _, tpl := range tpls {
		t.row(tpl.Id, string(tpl.Key), tpl.DisplayName, tpl.Revision, tpl.IsDefault, tpl.Builtin, tpl.Archived)
	}
	return t.flush()
}

func templatesGet(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("templates get")
	pos, err := positionals(fs, args, "template_id")
	if err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	tpl, err := receive[client.TemplateDetail](c.API().GetTemplate(ctx, pos[0]))
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(tpl)
	}
	if err := a.details("id", tpl.Id, "key", string(tpl.Key), "name", tpl.DisplayName, "revision", tpl.Revision,
		"default", tpl.IsDefault, "document requirements", len(tpl.DocumentRequirements)); err != nil {
		return err
	}
	a.println("\nchecks:")
	checks := a.table("KEY", "TITLE", "CHECK ID")
	for _, ch := range tpl.CheckItems {
		checks.row(ch.Key, ch.Title, ch.CheckId)
	}
	if err := checks.flush(); err != nil {
		return err
	}
	a.println("\ndata fields:")
	fields := a.table("KEY", "NAME", "REQUIRED", "THRESHOLD", "DATA FIELD ID")
	for _, f := range tpl.DataFieldItems {
		fields.row(f.Key, f.DisplayName, f.Required, f.ConfidenceThreshold, f.DataFieldId)
	}
	return fields.flush()
}
