package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/google/uuid"
)

// CheckResult is the outcome of one check of a batch; Err as from Check.
type CheckResult struct {
	Outcome CheckOutcome
	Err     error
}

// FieldResult is the outcome of one field of a batch; Err as from Field.
type FieldResult struct {
	Outcome FieldOutcome
	Err     error
}

// Checks asks for the verdicts of several checks with as few requests as possible:
// checks over the same documents in the same language go together, up to
// MaxBatchItems per request, answered in one JSON object keyed by item id. Each answer
// is verified on its own, exactly as Check does; an item whose answer is missing or
// malformed is asked again alone, so it fails (or succeeds) alone, and so is every
// item when the model never answers the batch as a whole. A transport or server error
// fails the whole batch without more requests. Results are in the order of reqs.
func (c *Client) Checks(ctx context.Context, reqs []CheckRequest) []CheckResult {
	out := make([]CheckResult, len(reqs))
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		keys[i] = r.Language + "|" + documentsKey(r.Documents, r.Types)
	}
	for _, group := range batches(keys, c.cfg.MaxBatchItems) {
		if len(group) == 1 {
			i := group[0]
			out[i].Outcome, out[i].Err = c.Check(ctx, reqs[i])
			continue
		}
		for i, res := range c.checkBatch(ctx, reqs, group) {
			out[i] = res
		}
	}
	return out
}

func (c *Client) checkBatch(ctx context.Context, reqs []CheckRequest, group []int) map[int]CheckResult {
	out := make(map[int]CheckResult, len(group))
	var asked []int
	for _, i := range group {
		if strings.TrimSpace(reqs[i].Prompt) == "" && strings.TrimSpace(reqs[i].Title) == "" {
			out[i] = CheckResult{Err: errors.New("llm: check has neither prompt nor title")}
			continue
		}
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return out
	}
	first := reqs[asked[0]]
	docs := nonNil(first.Documents)
	questions := make([]string, len(asked))
	keys := make([]string, len(asked))
	for n, i := range asked {
		questions[n] = checkQuestion(reqs[i])
		keys[n] = reqs[i].Key
	}
	sel := selectPages(docs, first.Types, strings.Join(questions, "\n"), c.cfg.MaxContextChars)
	ids := itemIDs(keys)
	items := make([]item, len(asked))
	for n, i := range asked {
		items[n] = checkItem(ids[n], reqs[i])
	}

	answers, err := c.askBatch(ctx, "check_verdicts", documentsText(sel), items, checkSchema(),
		func(jsonObject bool) string { return checkTask(first.Language, items, jsonObject) })
	for n, i := range asked {
		switch {
		case errors.Is(err, ErrMalformedOutput) && ctx.Err() == nil:
			// The model could not answer the batch as a whole: each item alone.
			res := CheckResult{}
			res.Outcome, res.Err = c.Check(ctx, reqs[i])
			out[i] = res
			continue
		case err != nil:
			out[i] = CheckResult{Err: err}
			continue
		}
		ans, derr := decodeItem(answers, ids[n], decodeCheck)
		if derr != nil {
			// Asked alone, with the retries of a single request.
			res := CheckResult{}
			res.Outcome, res.Err = c.Check(ctx, reqs[i])
			out[i] = res
			continue
		}
		out[i] = CheckResult{Outcome: checkOutcome(reqs[i].Language, docs, ans, sel.omitted)}
	}
	return out
}

// Fields extracts several fields with as few requests as possible, as Checks does for
// checks: grouped by documents, answered in one object keyed by item id, each value
// verified and re-parsed on its own, a malformed item asked again alone.
func (c *Client) Fields(ctx context.Context, reqs []FieldRequest) []FieldResult {
	out := make([]FieldResult, len(reqs))
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		keys[i] = documentsKey(r.Documents, r.Types)
	}
	for _, group := range batches(keys, c.cfg.MaxBatchItems) {
		if len(group) == 1 {
			i := group[0]
			out[i].Outcome, out[i].Err = c.Field(ctx, reqs[i])
			continue
		}
		for i, res := range c.fieldBatch(ctx, reqs, group) {
			out[i] = res
		}
	}
	return out
}

func (c *Client) fieldBatch(ctx context.Context, reqs []FieldRequest, group []int) map[int]FieldResult {
	out := make(map[int]FieldResult, len(group))
	var asked []int
	for _, i := range group {
		if err := validField(reqs[i]); err != nil {
			out[i] = FieldResult{Err: err}
			continue
		}
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return out
	}
	first := reqs[asked[0]]
	docs := nonNil(first.Documents)
	questions := make([]string, len(asked))
	keys := make([]string, len(asked))
	for n, i := range asked {
		questions[n] = fieldQuestion(reqs[i])
		keys[n] = reqs[i].Key
	}
	sel := selectPages(docs, first.Types, strings.Join(questions, "\n"), c.cfg.MaxContextChars)
	ids := itemIDs(keys)
	items := make([]item, len(asked))
	for n, i := range asked {
		items[n] = fieldItem(ids[n], reqs[i])
	}

	answers, err := c.askBatch(ctx, "field_values", documentsText(sel), items, fieldSchema(),
		func(jsonObject bool) string { return fieldTask(items, jsonObject) })
	for n, i := range asked {
		switch {
		case errors.Is(err, ErrMalformedOutput) && ctx.Err() == nil:
			// The model could not answer the batch as a whole: each item alone.
			res := FieldResult{}
			res.Outcome, res.Err = c.Field(ctx, reqs[i])
			out[i] = res
			continue
		case err != nil:
			out[i] = FieldResult{Err: err}
			continue
		}
		ans, derr := decodeItem(answers, ids[n], decodeField)
		if derr != nil {
			res := FieldResult{}
			res.Outcome, res.Err = c.Field(ctx, reqs[i])
			out[i] = res
			continue
		}
		out[i] = FieldResult{Outcome: fieldOutcome(reqs[i].ValueFormat, docs, ans, sel.omitted)}
	}
	return out
}

// askBatch sends one request for items and returns each item's raw answer by id. The
// request is retried when the answer is not a JSON object with at least one of the
// ids; single items that are missing or malformed are left to the caller.
func (c *Client) askBatch(ctx context.Context, schemaName, documents string, items []item, itemSchema map[string]any,
	task func(jsonObject bool) string,
) (map[string]json.RawMessage, error) {
	var answers map[string]json.RawMessage
	err := c.run(ctx, exchange{
		schemaName: schemaName,
		schema:     answerSchema(items, itemSchema),
		messages:   func(jsonObject bool) []chatMessage { return messages(documents, task(jsonObject)) },
		decode: func(content string) error {
			var m map[string]json.RawMessage
			if err := decodeJSON(content, &m); err != nil {
				return err
			}
			if !slices.ContainsFunc(items, func(it item) bool { _, ok := m[it.id]; return ok }) {
				return errors.New("the answer has no member named by an instruction id")
			}
			answers = m
			return nil
		},
	})
	return answers, err
}

// decodeItem reads one item's answer with the decoder of a single answer.
func decodeItem[T any](answers map[string]json.RawMessage, id string, decode func(string) (T, error)) (T, error) {
	raw, ok := answers[id]
	if !ok {
		var zero T
		return zero, fmt.Errorf("%w: no answer for %s", ErrMalformedOutput, id)
	}
	s := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(s, "{") {
		var zero T
		return zero, fmt.Errorf("%w: the answer for %s is not an object", ErrMalformedOutput, id)
	}
	return decode(s)
}

// itemIDs names the items of a batch after their keys, kept to [a-z0-9_] and at most
// 40 characters; an empty or repeated name becomes item_N.
func itemIDs(keys []string) []string {
	ids := make([]string, len(keys))
	seen := map[string]bool{}
	for i, k := range keys {
		id := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
				return r
			case r >= 'A' && r <= 'Z':
				return r + ('a' - 'A')
			case r == '-' || r == ' ' || r == '.':
				return '_'
			}
			return -1
		}, k)
		if len(id) > 40 {
			id = id[:40]
		}
		if id == "" || seen[id] {
			id = "item_" + strconv.Itoa(i+1)
		}
		for seen[id] {
			id += "_"
		}
		seen[id] = true
		ids[i] = id
	}
	return ids
}

// documentsKey identifies the documents a request is about: requests with the same key
// can share one request.
func documentsKey(docs []*evidence.Document, types map[uuid.UUID][]string) string {
	var b strings.Builder
	for _, d := range docs {
		if d == nil {
			continue
		}
		fmt.Fprintf(&b, "%s:%p:%s;", d.UploadID, d, strings.Join(types[d.UploadID], ","))
	}
	return b.String()
}

// batches groups the indexes of equal keys, in order of first appearance, in chunks of
// at most size.
func batches(keys []string, size int) [][]int {
	size = max(size, 1)
	var order []string
	groups := map[string][]int{}
	for i, k := range keys {
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out [][]int
	for _, k := range order {
		for g := groups[k]; len(g) > 0; {
			n := min(size, len(g))
			out = append(out, g[:n])
			g = g[n:]
		}
	}
	return out
}
