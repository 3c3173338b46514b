package partnercli

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

// catalogFamily is one of the catalog's resources (checks, data fields, document
// types): the same five operations over a different type, so one set of commands
// serves all three.
type catalogFamily[T, P any] struct {
	use, singular, long string
	aliases             []string
	// operations are the operationIds of list, get, create, update and delete.
	operations [5]string
	// fields are the flags of create and update; required those create needs.
	fields   []fieldFlag
	required []string
	example  string

	// The generated client's methods, as method expressions; create's params stay nil
	// (the Idempotency-Key goes in a header editor).
	list   func(ctx context.Context, c *sdk.Client, pageSize *int) iter.Seq2[*T, error]
	get    func(api client.ClientInterface, ctx context.Context, id string, editors ...client.RequestEditorFn) (*http.Response, error)
	create func(api client.ClientInterface, ctx context.Context, params *P, contentType string, body io.Reader, editors ...client.RequestEditorFn) (*http.Response, error)
	update func(api client.ClientInterface, ctx context.Context, id string, contentType string, body io.Reader, editors ...client.RequestEditorFn) (*http.Response, error)
	// delete is the SDK's, which counts a retry that finds the entry gone as done.
	delete func(c *sdk.Client, ctx context.Context, id string, opts ...sdk.RequestOption) error

	columns[T]
	details func(*T) []any
}

func (a *app) checksCommand() *cobra.Command {
	return catalogCommands(a, catalogFamily[client.Check, client.CreateCheckParams]{
		use: "checks", singular: "check", aliases: []string{"check"},
		long:       "Checks are the questions an evaluation answers about the documents; builtin ones are read-only.",
		operations: [5]string{"listChecks", "getCheck", "createCheck", "updateCheck", "deleteCheck"},
		fields: []fieldFlag{
			{flag: "title", field: "title", usage: "title (the key is a slug of it)"},
			{flag: "prompt", field: "prompt", usage: "instruction for the reviewer model"},
			{flag: "category", field: "category", usage: "category, e.g. identity or income"},
			{flag: "description", field: "description", usage: "a note for people"},
			{flag: "product-type", field: "product_types", usage: "a product type it applies to, repeatable", list: true},
		},
		required: []string{"title", "prompt"},
		example:  `--title "Employer named" --prompt "Does the payslip name the employer?"`,
		list: func(ctx context.Context, c *sdk.Client, size *int) iter.Seq2[*client.Check, error] {
			return c.ListChecks(ctx, &client.ListChecksParams{Limit: size})
		},
		get:    client.ClientInterface.GetCheck,
		create: client.ClientInterface.CreateCheckWithBody,
		update: client.ClientInterface.UpdateCheckWithBody,
		delete: (*sdk.Client).DeleteCheck,
		columns: columns[client.Check]{
			id:     func(c *client.Check) string { return c.Id },
			header: []string{"ID", "KEY", "TITLE", "CATEGORY", "BUILTIN"},
			row: func(c *client.Check) []any {
				return []any{c.Id, string(c.Key), c.Title, string(c.Category), c.Builtin}
			},
		},
		details: func(c *client.Check) []any {
			return []any{"id", c.Id, "key", string(c.Key), "title", c.Title, "category", string(c.Category),
				"product types", c.ProductTypes, "description", c.Description, "prompt", c.Prompt,
				"builtin", c.Builtin, "archived", c.Archived, "updated", c.UpdatedAt}
		},
	})
}

func (a *app) dataFieldsCommand() *cobra.Command {
	return catalogCommands(a, catalogFamily[client.DataField, client.CreateDataFieldParams]{
		use: "data-fields", singular: "data field", aliases: []string{"data-field", "fields"},
		long:       "Data fields are the values an evaluation extracts from the documents; builtin ones are read-only.",
		operations: [5]string{"listDataFields", "getDataField", "createDataField", "updateDataField", "deleteDataField"},
		fields: []fieldFlag{
			{flag: "name", field: "display_name", usage: "display name (the key is a slug of it)"},
			{flag: "prompt", field: "prompt", usage: "extraction instruction"},
			{flag: "category", field: "category", usage: "category, e.g. income"},
			{flag: "value-format", field: "value_format", usage: `currency, years, percent, square_meters or date ("" for free text)`, nullable: true},
		},
		required: []string{"name", "prompt"},
		example:  `--name "Employer" --prompt "The employer named on the payslip"`,
		list: func(ctx context.Context, c *sdk.Client, size *int) iter.Seq2[*client.DataField, error] {
			return c.ListDataFields(ctx, &client.ListDataFieldsParams{Limit: size})
		},
		get:    client.ClientInterface.GetDataField,
		create: client.ClientInterface.CreateDataFieldWithBody,
		update: client.ClientInterface.UpdateDataFieldWithBody,
		delete: (*sdk.Client).DeleteDataField,
		columns: columns[client.DataField]{
			id:     func(f *client.DataField) string { return f.Id },
			header: []string{"ID", "KEY", "NAME", "CATEGORY", "FORMAT", "BUILTIN"},
			row: func(f *client.DataField) []any {
				return []any{f.Id, string(f.Key), f.DisplayName, string(f.Category), f.ValueFormat, f.Builtin}
			},
		},
		details: func(f *client.DataField) []any {
			return []any{"id", f.Id, "key", string(f.Key), "name", f.DisplayName, "category", string(f.Category),
				"value format", f.ValueFormat, "prompt", f.Prompt, "builtin", f.Builtin, "archived", f.Archived, "updated", f.UpdatedAt}
		},
	})
}

func (a *app) documentTypesCommand() *cobra.Command {
	return catalogCommands(a, catalogFamily[client.DocumentType, client.CreateDocumentTypeParams]{
		use: "document-types", singular: "document type", aliases: []string{"document-type", "doctypes"},
		long:       "Document types are what templates require as documents; builtin ones are read-only.",
		operations: [5]string{"listDocumentTypes", "getDocumentType", "createDocumentType", "updateDocumentType", "deleteDocumentType"},
		fields: []fieldFlag{
			{flag: "name", field: "display_name", usage: "display name (the key is a slug of it)"},
			{flag: "category", field: "category", usage: "category, e.g. identity"},
			{flag: "description", field: "description", usage: "a note for people"},
		},
		required: []string{"name"},
		example:  `--name "Leasing contract" --category other`,
		list: func(ctx context.Context, c *sdk.Client, size *int) iter.Seq2[*client.DocumentType, error] {
			return c.ListDocumentTypes(ctx, &client.ListDocumentTypesParams{Limit: size})
		},
		get:    client.ClientInterface.GetDocumentType,
		create: client.ClientInterface.CreateDocumentTypeWithBody,
		update: client.ClientInterface.UpdateDocumentTypeWithBody,
		delete: (*sdk.Client).DeleteDocumentType,
		columns: columns[client.DocumentType]{
			id:     func(d *client.DocumentType) string { return d.Id },
			header: []string{"ID", "KEY", "NAME", "CATEGORY", "BUILTIN"},
			row: func(d *client.DocumentType) []any {
				return []any{d.Id, string(d.Key), d.DisplayName, string(d.Category), d.Builtin}
			},
		},
		details: func(d *client.DocumentType) []any {
			return []any{"id", d.Id, "key", string(d.Key), "name", d.DisplayName, "category", string(d.Category),
				"description", d.Description, "builtin", d.Builtin, "archived", d.Archived, "updated", d.UpdatedAt}
		},
	})
}

// catalogCommands builds list, get, create, update and delete for one family.
func catalogCommands[T, P any](a *app, f catalogFamily[T, P]) *cobra.Command {
	idArg := strings.ToUpper(strings.ReplaceAll(f.singular, " ", "_")) + "_ID"
	show := func(v *T) error {
		return a.emit(v, []string{f.columns.id(v)}, func() error { return a.details(f.details(v)...) })
	}
	group := a.group(f.use, "List, inspect, create, update and delete "+f.singular+"s", f.long, f.aliases...)

	var list listFlags
	listCmd := &cobra.Command{
		Use:     "list",
		Short:   "List builtin and custom " + f.singular + "s",
		Example: "  doceval " + f.use + " list\n  doceval " + f.use + " list --all --json",
		Args:    exactArgs(0),
		RunE: listRunE(a, &list, func(ctx context.Context, _ []string, size *int) (iter.Seq2[*T, error], error) {
			return f.list(ctx, a.sdkClient, size), nil
		}, f.columns),
	}
	list.register(listCmd)

	getCmd := &cobra.Command{
		Use:     "get " + idArg,
		Short:   "Show a " + f.singular + " (by builtin key, custom UUID or key)",
		Example: "  doceval " + f.use + " get " + idArg,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := a.sdkClient
			v, err := receive[T](f.get(c.API(), cmd.Context(), args[0]))
			if err != nil {
				return err
			}
			return show(v)
		},
	}

	var createData, key string
	createCmd := &cobra.Command{
		Use:     "create",
		Short:   "Create a custom " + f.singular,
		Example: "  doceval " + f.use + " create " + f.example + "\n  doceval " + f.use + " create --data @" + strings.ReplaceAll(f.singular, " ", "_") + ".json",
		Args:    exactArgs(0),
	}
	setCreate := bodyFields(createCmd, f.fields...)
	dataFlag(createCmd, &createData)
	idempotencyFlag(createCmd, &key)
	createCmd.RunE = func(cmd *cobra.Command, _ []string) error {
		b, err := a.newBody(cmd, createData)
		if err != nil {
			return err
		}
		setCreate(b)
		for _, name := range f.required {
			if err := b.require(name, fieldOf(f.fields, name)); err != nil {
				return err
			}
		}
		c := a.sdkClient
		v, err := receive[T](f.create(c.API(), cmd.Context(), nil, jsonContentType, b.reader(), withKey(key)))
		if err != nil {
			return err
		}
		return show(v)
	}

	var updateData string
	updateCmd := &cobra.Command{
		Use:     "update " + idArg,
		Short:   "Change a custom " + f.singular + "; fields not given stay unchanged",
		Example: "  doceval " + f.use + " update " + idArg + " " + f.example,
		Args:    exactArgs(1),
	}
	setUpdate := bodyFields(updateCmd, f.fields...)
	dataFlag(updateCmd, &updateData)
	updateCmd.RunE = func(cmd *cobra.Command, args []string) error {
		b, err := a.newBody(cmd, updateData)
		if err != nil {
			return err
		}
		setUpdate(b)
		if b.empty() {
			return usagef("%s: nothing to change; give a flag or --data", cmd.CommandPath())
		}
		c := a.sdkClient
		v, err := receive[T](f.update(c.API(), cmd.Context(), args[0], jsonContentType, b.reader()))
		if err != nil {
			return err
		}
		return show(v)
	}

	deleteCmd := &cobra.Command{
		Use:     "delete " + idArg,
		Short:   "Archive a custom " + f.singular + " (templates using it keep it)",
		Example: "  doceval " + f.use + " delete " + idArg,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := a.sdkClient
			if err := f.delete(c, cmd.Context(), args[0]); err != nil {
				return err
			}
			return a.done(args[0], "archived", f.singular+" "+args[0]+" archived")
		},
	}

	group.AddCommand(
		calls(listCmd, f.operations[0]), calls(getCmd, f.operations[1]), calls(createCmd, f.operations[2]),
		calls(updateCmd, f.operations[3]), calls(deleteCmd, f.operations[4]),
	)
	return group
}

func fieldOf(fields []fieldFlag, flag string) string {
	for _, f := range fields {
		if f.flag == flag {
			return f.field
		}
	}
	return flag
}
