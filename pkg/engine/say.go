package engine

import "fmt"

// say picks the German or English format for the submission's language and formats
// it (so a literal percent sign is written %%). Reasoning summaries are written in the
// submission's language (Submission.language).
func say(lang, en, de string, args ...any) string {
	f := en
	if lang == "de" {
		f = de
	}
	return fmt.Sprintf(f, args...)
}
