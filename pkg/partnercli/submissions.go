package partnercli

import (
	"context"
	"encoding/json"

	"github.com/doceval/doceval/gen/client"
)

func init() {
	groups["submissions"] = group{summary: "create, list, inspect, cancel and delete submissions", cmds: map[string]command{
		"create": submissionsCreate,
		"list":   submissionsList,
		"get":    submissionsGet,
		"cancel": submissionsCancel,
		"delete": submissionsDelete,
	}}
}

func submissionsCreate(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("submissions create")
	externalID := fs.String("external-id", "", "your id for the submission (required)")
	template := fs.String("template", "", "template id (default: the account's default template)")
	language := fs.String("language", "", "document language: de or en")
	metadata := fs.String("metadata", "", "metadata as a JSON object")
	if _, err := positionals(fs, args); err != nil {
		return err
	}
	if *externalID == "" {
		return usagef("submissions create: --external-id is required")
	}
	req := client.CreateSubmissionRequest{ExternalSubmissionId: *externalID}
	if *template != "" {
		req.TemplateId = template
	}
	if *language != "" {
		if *language != "de" && *language != "en" {
			return usagef("submissions create: --language must be de or en, not %q", *language)
		}
		lang := client.SubmissionLanguage(*language)
		req.Language = &lang
	}
	if *metadata != "" {
		var m client.Metadata
		if err := json.Unmarshal([]byte(*metadata), &m); err != nil {
			return usagef("submissions create: --metadata is not a JSON object: %v", err)
		}
		req.Metadata = &m
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	sub, err := c.CreateSubmission(ctx, req)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(sub)
	}
	return a.details("id", sub.Id.String(), "display id", sub.DisplayId, "external id", sub.ExternalSubmissionId,
		"status", string(sub.Status), "template", sub.TemplateId, "created", sub.CreatedAt)
}

func submissionsList(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("submissions list")
	status := fs.String("status", "", "only submissions in this status")
	limit := fs.Int("limit", 50, "print at most this many (0: all)")
	if _, err := positionals(fs, args); err != nil {
		return err
	}
	if *limit < 0 {
		return usagef("submissions list: --limit must not be negative")
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	params := &client.ListSubmissionsParams{Limit: pageSize(*limit)}
	if *status != "" {
		s := client.SubmissionStatus(*status)
		params.Status = &s
	}
	subs, err := collect(c.ListSubmissions(ctx, params), *limit)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(subs)
	}
	t := a.table("ID", "DISPLAY ID", "EXTERNAL ID", "STATUS", "TEMPLATE", "CREATED")
	for _, s := range subs {
		t.row(s.Id.String(), s.DisplayId, s.ExternalSubmissionId, string(s.Status), s.TemplateId, s.CreatedAt)
	}
	return t.flush()
}

func submissionsGet(ctx context.Context, a *app, args []string) error {
	c, id, err := a.clientForID(a.newFlagSet("submissions get"), args, "submission_id")
	if err != nil {
		return err
	}
	sub, err := c.GetSubmission(ctx, id)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(sub)
	}
	latest := "-"
	if ev := sub.LatestEvaluation; ev != nil {
		latest = ev.Id.String() + " (" + string(ev.Status) + ")"
	}
	if err := a.details("id", sub.Id.String(), "display id", sub.DisplayId, "external id", sub.ExternalSubmissionId,
		"status", string(sub.Status), "template", sub.TemplateId, "metadata", sub.Metadata,
		"latest evaluation", latest, "created", sub.CreatedAt, "updated", sub.UpdatedAt); err != nil {
		return err
	}
	if len(sub.DocumentSlots) > 0 {
		a.println("\ndocument slots:")
		t := a.table("SLOT ID", "KEY", "LABEL", "REQUIRED", "STATUS", "UPLOADS")
		for _, slot := range sub.DocumentSlots {
			t.row(slot.Id.String(), slot.Key, slot.Label, slot.Required, string(slot.Status), len(slot.Uploads))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(sub.UnassignedUploads) > 0 {
		a.println("\nunassigned uploads:")
		t := a.table("ID", "EXTERNAL FILE ID", "FILENAME", "STATUS")
		for _, u := range sub.UnassignedUploads {
			t.row(u.Id.String(), u.ExternalFileId, u.Filename, string(u.UploadStatus))
		}
		return t.flush()
	}
	return nil
}

func submissionsCancel(ctx context.Context, a *app, args []string) error {
	c, id, err := a.clientForID(a.newFlagSet("submissions cancel"), args, "submission_id")
	if err != nil {
		return err
	}
	sub, err := c.CancelSubmission(ctx, id)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(sub)
	}
	return a.details("id", sub.Id.String(), "status", string(sub.Status))
}

func submissionsDelete(ctx context.Context, a *app, args []string) error {
	c, id, err := a.clientForID(a.newFlagSet("submissions delete"), args, "submission_id")
	if err != nil {
		return err
	}
	res, err := c.API().DeleteSubmission(ctx, id)
	if _, err := receive[json.RawMessage](res, err); err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(map[string]any{"id": id, "deletion_accepted": true})
	}
	a.println("deletion of submission " + id.String() + " accepted")
	return nil
}
