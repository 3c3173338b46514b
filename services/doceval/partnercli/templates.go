package partnercli

import (
	"context"
	"io"
	"iter"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
)

func (a *app) templatesCommand() *cobra.Command {
	cmd := a.group("templates", "List, inspect, create and edit evaluation templates",
		`Templates bundle document requirements, checks and data fields. Builtin templates are
read-only: duplicate one to customize it. Edits affect future submissions only.`, "template")
	cmd.AddCommand(
		a.templatesList(), a.templatesGet(), a.templatesCreate(), a.templatesUpdate(),
		a.templatesDelete(), a.templatesDuplicate(),
		a.templateItemsReplace("replace-documents", "replaceTemplateDocumentRequirements", "document requirements",
			"document-type", "document_type_id", client.ClientInterface.ReplaceTemplateDocumentRequirementsWithBody),
		a.templateItemsReplace("replace-checks", "replaceTemplateCheckItems", "check items",
			"check", "check_id", client.ClientInterface.ReplaceTemplateCheckItemsWithBody),
		a.templateItemsReplace("replace-fields", "replaceTemplateDataFieldItems", "data-field items",
			"data-field", "data_field_id", client.ClientInterface.ReplaceTemplateDataFieldItemsWithBody),
	)
	return cmd
}

func (a *app) templatesList() *cobra.Command {
	var list listFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List builtin and custom templates",
		Example: `  doceval templates list
  doceval templates list -q`,
		Args: exactArgs(0),
		RunE: listRunE(a, &list,
			func(ctx context.Context, _ []string, size *int) (iter.Seq2[*client.Template, error], error) {
				return a.sdkClient.ListTemplates(ctx, &client.ListTemplatesParams{Limit: size}), nil
			},
			columns[client.Template]{
				id:     func(t *client.Template) string { return t.Id },
				header: []string{"ID", "KEY", "NAME", "REVISION", "DEFAULT", "BUILTIN"},
				row: func(t *client.Template) []any {
					return []any{t.Id, string(t.Key), t.DisplayName, t.Revision, t.IsDefault, t.Builtin}
				},
			}),
	}
	list.register(cmd)
	return calls(cmd, "listTemplates")
}

func (a *app) templatesGet() *cobra.Command {
	return calls(&cobra.Command{
		Use:   "get TEMPLATE_ID",
		Short: "Show a template with its document requirements, checks and data fields",
		Long:  "TEMPLATE_ID is a builtin key (such as personal_loan) or a custom template's UUID or key.",
		Example: `  doceval templates get personal_loan
  doceval templates get personal_loan --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := a.sdkClient
			tpl, err := receive[client.TemplateDetail](c.API().GetTemplate(cmd.Context(), args[0]))
			if err != nil {
				return err
			}
			return a.printTemplate(tpl)
		},
	}, "getTemplate")
}

func (a *app) templatesCreate() *cobra.Command {
	var (
		name, data, key           string
		checks, fields, documents []string
	)
	cmd := &cobra.Command{
		Use:   "create --name NAME",
		Short: "Create a custom template",
		Long: `Creates a custom template. Items are given by id with --check, --data-field and
--document-type (in display order), or in full in --data (check_items, data_field_items,
document_requirements: the shapes of the replace-* commands' items).`,
		Example: `  doceval templates create --name "Car loan" --check documents_readable --check name_consistency \
      --data-field net_monthly_income --document-type id_card --document-type payslip
  doceval templates create --data @template.json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := a.newBody(cmd, data)
			if err != nil {
				return err
			}
			b.set("name", "display_name", name)
			b.set("check", "check_items", itemsByID("check_id", checks))
			b.set("data-field", "data_field_items", itemsByID("data_field_id", fields))
			b.set("document-type", "document_requirements", itemsByID("document_type_id", documents))
			if err := b.require("name", "display_name"); err != nil {
				return err
			}
			c := a.sdkClient
			tpl, err := receive[client.TemplateDetail](c.API().CreateTemplateWithBody(cmd.Context(),
				&client.CreateTemplateParams{IdempotencyKey: optional(key)}, jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printTemplate(tpl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "display name (the key is a slug of it)")
	f.StringArrayVar(&checks, "check", nil, "a check id or key, repeatable, in display order")
	f.StringArrayVar(&fields, "data-field", nil, "a data field id or key, repeatable, in display order")
	f.StringArrayVar(&documents, "document-type", nil, "a document type id or key, repeatable, in display order")
	dataFlag(cmd, &data)
	idempotencyFlag(cmd, &key)
	return calls(cmd, "createTemplate")
}

func (a *app) templatesUpdate() *cobra.Command {
	var (
		name, data string
		isDefault  bool
		revision   int
	)
	cmd := &cobra.Command{
		Use:   "update TEMPLATE_ID",
		Short: "Rename a custom template or make it the default",
		Long: `Changes display_name and/or is_default of a custom template. Without --revision the
template's current revision is read first, so the update applies to whatever is stored
now; pass --revision to fail (409 revision_mismatch) when someone changed it since.`,
		Example: `  doceval templates update 0190a1b2-… --name "Car loan v2"
  doceval templates update 0190a1b2-… --default --revision 3`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.newBody(cmd, data)
			if err != nil {
				return err
			}
			b.set("name", "display_name", name)
			b.set("default", "is_default", isDefault)
			c := a.sdkClient
			if err := a.setRevision(cmd, c.API(), b, args[0], revision); err != nil {
				return err
			}
			tpl, err := receive[client.TemplateDetail](c.API().UpdateTemplateWithBody(cmd.Context(), args[0], jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printTemplate(tpl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "new display name (the key stays)")
	f.BoolVar(&isDefault, "default", false, "make it the default template (--default=false clears it)")
	revisionFlag(cmd, &revision)
	dataFlag(cmd, &data)
	return calls(cmd, "updateTemplate")
}

func (a *app) templatesDelete() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "delete TEMPLATE_ID",
		Short:   "Archive a custom template",
		Long:    "Archives the template: it leaves listings, stays readable by id and creates no new submissions.",
		Example: "  doceval templates delete 0190a1b2-…",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := a.sdkClient
			if err := c.DeleteTemplate(cmd.Context(), args[0]); err != nil {
				return err
			}
			return a.done(args[0], "archived", "template "+args[0]+" archived")
		},
	}, "deleteTemplate")
}

func (a *app) templatesDuplicate() *cobra.Command {
	var name, key string
	cmd := &cobra.Command{
		Use:   "duplicate TEMPLATE_ID",
		Short: "Copy a builtin or custom template into a new custom one",
		Example: `  doceval templates duplicate personal_loan --name "Personal loan (ours)"
  doceval templates duplicate personal_loan -q`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.newBody(cmd, "")
			if err != nil {
				return err
			}
			b.set("name", "display_name", name)
			c := a.sdkClient
			tpl, err := receive[client.TemplateDetail](c.API().DuplicateTemplateWithBody(cmd.Context(), args[0],
				&client.DuplicateTemplateParams{IdempotencyKey: optional(key)}, jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printTemplate(tpl)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "display name of the copy (default: the source's)")
	idempotencyFlag(cmd, &key)
	return calls(cmd, "duplicateTemplate")
}

// replaceItems is one of the generated client's three PUT …_items methods.
type replaceItems func(c client.ClientInterface, ctx context.Context, templateID string, contentType string, body io.Reader, editors ...client.RequestEditorFn) (*http.Response, error)

// templateItemsReplace builds one of the three commands that replace a template's list
// of document requirements, check items or data-field items.
func (a *app) templateItemsReplace(use, operationID, what, idFlag, idField string, send replaceItems) *cobra.Command {
	var (
		items    string
		ids      []string
		revision int
	)
	cmd := &cobra.Command{
		Use:   use + " TEMPLATE_ID",
		Short: "Replace the " + what + " of a custom template",
		Long: `Replaces the whole list of ` + what + `, in display order: give ids with --` + idFlag + ` (repeatable)
or the full items as a JSON array in --items. Without --revision the current revision
is read first.`,
		Example: "  doceval templates " + use + " 0190a1b2-… --" + idFlag + " ID1 --" + idFlag + " ID2\n" +
			"  doceval templates " + use + " 0190a1b2-… --items @items.json --revision 4",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.newBody(cmd, "")
			if err != nil {
				return err
			}
			switch {
			case items != "" && len(ids) > 0:
				return usagef("give either --items or --%s", idFlag)
			case items != "":
				v, err := a.jsonValue("items", "a JSON array", items)
				if err != nil {
					return err
				}
				b.fields["items"] = v
			default:
				b.fields["items"] = itemsByID(idField, ids)
			}
			c := a.sdkClient
			if err := a.setRevision(cmd, c.API(), b, args[0], revision); err != nil {
				return err
			}
			tpl, err := receive[client.TemplateDetail](send(c.API(), cmd.Context(), args[0], jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printTemplate(tpl)
		},
	}
	cmd.Flags().StringVar(&items, "items", "", "the items as a JSON array, @FILE or - (stdin)")
	cmd.Flags().StringArrayVar(&ids, idFlag, nil, "an id or key, repeatable, in display order")
	revisionFlag(cmd, &revision)
	return calls(cmd, operationID)
}

func revisionFlag(cmd *cobra.Command, revision *int) {
	cmd.Flags().IntVar(revision, "revision", 0, "the template's current revision (default: read it first)")
}

// setRevision puts expected_revision into b: --revision, or the template's current one.
func (a *app) setRevision(cmd *cobra.Command, api client.ClientInterface, b *body, templateID string, revision int) error {
	if cmd.Flags().Changed("revision") {
		b.fields["expected_revision"] = revision
		return nil
	}
	if _, ok := b.fields["expected_revision"]; ok {
		return nil
	}
	tpl, err := receive[client.TemplateDetail](api.GetTemplate(cmd.Context(), templateID))
	if err != nil {
		return err
	}
	b.fields["expected_revision"] = tpl.Revision
	return nil
}

// itemsByID turns ids into items that name only the id, e.g. [{"check_id": "…"}].
func itemsByID(field string, ids []string) []map[string]string {
	items := make([]map[string]string, len(ids))
	for i, id := range ids {
		items[i] = map[string]string{field: id}
	}
	return items
}

func (a *app) printTemplate(tpl *client.TemplateDetail) error {
	return a.emit(tpl, []string{tpl.Id}, func() error {
		if err := a.details("id", tpl.Id, "key", string(tpl.Key), "name", tpl.DisplayName, "revision", tpl.Revision,
			"default", tpl.IsDefault, "builtin", tpl.Builtin, "archived", tpl.Archived); err != nil {
			return err
		}
		a.println("\ndocument requirements:")
		docs := a.table("KEY", "LABEL", "REQUIRED", "MULTIPLE FILES", "DOCUMENT TYPE ID")
		for _, d := range tpl.DocumentRequirements {
			docs.row(d.Key, d.Label, d.Required, d.AllowMultipleFiles, d.DocumentTypeId)
		}
		if err := docs.flush(); err != nil {
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
	})
}
