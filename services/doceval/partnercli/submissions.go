package partnercli

import (
	"context"
	"iter"
	"time"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
)

var submissionStatuses = []string{
	string(client.SubmissionStatusCollectingDocuments), string(client.SubmissionStatusEvaluating),
	string(client.SubmissionStatusCompleted), string(client.SubmissionStatusFailed), string(client.SubmissionStatusCanceled),
}

func (a *app) submissionsCommand() *cobra.Command {
	cmd := a.group("submissions", "Create, list, inspect, update, cancel and delete submissions",
		`A submission is created from a template, keyed by your external id (creating it again
with the same id answers the existing one), and collects the uploads an evaluation reads.`,
		"submission", "subs")
	cmd.AddCommand(a.submissionsList(), a.submissionsGet(), a.submissionsCreate(), a.submissionsUpdate(),
		a.submissionsCancel(), a.submissionsDelete())
	return cmd
}

func (a *app) submissionsList() *cobra.Command {
	var (
		list                                       listFlags
		status, externalID, template, since, until string
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List submissions, newest first",
		Example: `  doceval submissions list --status completed
  doceval submissions list --created-after 2026-01-01 --all -q
  doceval submissions list --external-id crm-4712 --json`,
		Args: exactArgs(0),
		RunE: listRunE(a, &list, func(ctx context.Context, _ []string, size *int) (iter.Seq2[*client.SubmissionSummary, error], error) {
			params := &client.ListSubmissionsParams{Limit: size, ExternalSubmissionId: optional(externalID), TemplateId: optional(template)}
			if status != "" {
				s := client.SubmissionStatus(status)
				params.Status = &s
			}
			var err error
			if params.CreatedAtGte, err = parseTime("created-after", since); err != nil {
				return nil, err
			}
			if params.CreatedAtLt, err = parseTime("created-before", until); err != nil {
				return nil, err
			}
			return a.sdkClient.ListSubmissions(ctx, params), nil
		}, columns[client.SubmissionSummary]{
			id:     func(s *client.SubmissionSummary) string { return s.Id.String() },
			header: []string{"ID", "DISPLAY ID", "EXTERNAL ID", "STATUS", "TEMPLATE", "CREATED"},
			row: func(s *client.SubmissionSummary) []any {
				return []any{s.Id.String(), s.DisplayId, s.ExternalSubmissionId, string(s.Status), s.TemplateId, s.CreatedAt}
			},
		}),
	}
	f := cmd.Flags()
	f.StringVar(&status, "status", "", "only submissions in this status")
	f.StringVar(&externalID, "external-id", "", "only the submission with this external id")
	f.StringVar(&template, "template", "", "only submissions of this template (builtin key or UUID)")
	f.StringVar(&since, "created-after", "", "only those created at or after this time (RFC 3339 or YYYY-MM-DD)")
	f.StringVar(&until, "created-before", "", "only those created before this time (RFC 3339 or YYYY-MM-DD)")
	completeValues(cmd, "status", submissionStatuses...)
	list.register(cmd)
	return calls(cmd, "listSubmissions")
}

// parseTime reads a time flag as RFC 3339 or a date (midnight UTC); "" is no filter.
func parseTime(flag, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return &t, nil
		}
	}
	return nil, usagef("--%s %q is neither an RFC 3339 time nor a YYYY-MM-DD date", flag, v)
}

func (a *app) submissionsGet() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "get SUBMISSION_ID",
		Short:   "Show a submission with its document slots, uploads and latest evaluation",
		Example: "  doceval submissions get 0190a1b2-…\n  doceval submissions get 0190a1b2-… --json | jq .document_slots",
		Args:    uuidArgs("submission id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			c := a.sdkClient
			sub, err := c.GetSubmission(cmd.Context(), id)
			if err != nil {
				return err
			}
			return a.emit(sub, []string{sub.Id.String()}, func() error { return a.printSubmissionDetail(sub) })
		},
	}, "getSubmission")
}

func (a *app) printSubmissionDetail(sub *client.SubmissionDetail) error {
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

func (a *app) submissionsCreate() *cobra.Command {
	var externalID, template, language, metadata, data, key string
	cmd := &cobra.Command{
		Use:   "create --external-id ID",
		Short: "Create a submission (again with the same external id: the existing one)",
		Long: `Creates a submission from a template (default: the account's default template).
Creating it again with the same --external-id answers the existing submission, so the
command is safe to repeat. Extra document slots for this submission only go in --data
as extra_document_requirements.`,
		Example: `  doceval submissions create --external-id crm-4712
  doceval submissions create --external-id crm-4712 --template personal_loan --language en --metadata '{"crm":"A-7"}'
  doceval submissions create --external-id crm-4712 -q`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := a.newBody(cmd, data)
			if err != nil {
				return err
			}
			b.set("external-id", "external_submission_id", externalID)
			b.set("template", "template_id", template)
			if language != "" && language != "de" && language != "en" {
				return usagef("submissions create: --language must be de or en, not %q", language)
			}
			b.set("language", "language", language)
			if metadata != "" {
				if err := a.setMetadata(b, metadata); err != nil {
					return err
				}
			}
			if _, ok := b.fields["external_submission_id"]; !ok {
				return usagef("submissions create: --external-id is required")
			}
			c := a.sdkClient
			sub, err := receive[client.Submission](c.API().CreateSubmissionWithBody(cmd.Context(),
				&client.CreateSubmissionParams{IdempotencyKey: optional(key)}, jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printSubmission(sub)
		},
	}
	f := cmd.Flags()
	f.StringVar(&externalID, "external-id", "", "your id for the submission (required)")
	f.StringVar(&template, "template", "", "template id or key (default: the account's default template)")
	f.StringVar(&language, "language", "", "language of the reasoning summaries: de or en")
	f.StringVar(&metadata, "metadata", "", "metadata as a JSON object, @FILE or -")
	completeValues(cmd, "language", "de", "en")
	dataFlag(cmd, &data)
	idempotencyFlag(cmd, &key)
	return calls(cmd, "createSubmission")
}

// setMetadata puts --metadata, which must be a JSON object, into b.
func (a *app) setMetadata(b *body, arg string) error {
	v, err := a.jsonValue("metadata", "a JSON object", arg)
	if err != nil {
		return err
	}
	b.fields["metadata"] = v
	return nil
}

func (a *app) printSubmission(sub *client.Submission) error {
	return a.emit(sub, []string{sub.Id.String()}, func() error {
		return a.details("id", sub.Id.String(), "display id", sub.DisplayId, "external id", sub.ExternalSubmissionId,
			"status", string(sub.Status), "template", sub.TemplateId, "metadata", sub.Metadata, "created", sub.CreatedAt)
	})
}

func (a *app) submissionsUpdate() *cobra.Command {
	var metadata, data string
	cmd := &cobra.Command{
		Use:     "update SUBMISSION_ID --metadata JSON",
		Short:   "Replace a submission's metadata",
		Long:    "Replaces the metadata as a whole (it is never merged).",
		Example: `  doceval submissions update 0190a1b2-… --metadata '{"crm":"A-8","branch":"north"}'`,
		Args:    uuidArgs("submission id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			b, err := a.newBody(cmd, data)
			if err != nil {
				return err
			}
			if metadata != "" {
				if err := a.setMetadata(b, metadata); err != nil {
					return err
				}
			}
			if err := b.require("metadata", "metadata"); err != nil {
				return err
			}
			c := a.sdkClient
			sub, err := receive[client.Submission](c.API().UpdateSubmissionWithBody(cmd.Context(), id, jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printSubmission(sub)
		},
	}
	cmd.Flags().StringVar(&metadata, "metadata", "", "the new metadata as a JSON object, @FILE or -")
	dataFlag(cmd, &data)
	return calls(cmd, "updateSubmission")
}

func (a *app) submissionsCancel() *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:     "cancel SUBMISSION_ID",
		Short:   "Cancel a submission (and its running evaluation)",
		Example: "  doceval submissions cancel 0190a1b2-…",
		Args:    uuidArgs("submission id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			c := a.sdkClient
			sub, err := receive[client.Submission](c.API().CancelSubmission(cmd.Context(), id, &client.CancelSubmissionParams{IdempotencyKey: optional(key)}))
			if err != nil {
				return err
			}
			return a.printSubmission(sub)
		},
	}
	idempotencyFlag(cmd, &key)
	return calls(cmd, "cancelSubmission")
}

func (a *app) submissionsDelete() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "delete SUBMISSION_ID",
		Short:   "Delete a submission with its documents and results (purged in the background)",
		Example: "  doceval submissions delete 0190a1b2-…",
		Args:    uuidArgs("submission id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			c := a.sdkClient
			if err := c.DeleteSubmission(cmd.Context(), id); err != nil {
				return err
			}
			return a.done(id.String(), "deletion_accepted", "deletion of submission "+id.String()+" accepted")
		},
	}, "deleteSubmission")
}
