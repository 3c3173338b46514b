package engine

import "fmt"

// say picks the German or English text for the submission's language and formats it.
// Reasoning summaries are written in the submission's language (DECISIONS.md).
func say(lang, en, de string, args ...any) string {
	f := en
	if lang == "de" {
		f = de
	}
	if len(args) == 0 {
		return f
	}
	return fmt.Sprintf(f, args...)
}
