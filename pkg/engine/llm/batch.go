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

// Result is the outcome of one item of a batch; Err as from Check or Field.
type Result[O any] struct {
	Outcome O
	Err     error
}

// CheckResult is the outcome of one check of a batch.
type CheckResult = Result[CheckOutcome]

// FieldResult is the outcome of one field of a batch.
type FieldResult = Result[FieldOutcome]

// Checks asks for the verdicts of several checks with as few requests as possible:
// checks over the same documents in the same language go together, up to
// MaxBatchItems per request, answered in one JSON object keyed by item id. Each answer
// is verified on its own, exactly as Check does; an item whose answer is missing or
// malformed is asked again alone, so it fails (or succeeds) alone, and so is every
// item when the model never answers the batch as a whole. A transport or server error
// fails the whole batch without more requests. Results are in the order of reqs.
func (c *Client) Checks(ctx context.Context, reqs []CheckRequest) []CheckResult {
	return askBatched(ctx, c, reqs, batchKind[CheckRequest, CheckOutcome, checkAnswer]{
		schemaName: "check_verdicts",
		schema:     checkSchema,
		group:      func(r CheckRequest) string { return r.Language + "|" + documentsKey(r.Documents, r.Types) },
		docs:       func(r CheckRequest) ([]*evidence.Document, map[uuid.UUID][]string) { return r.Documents, r.Types },
		valid: func(r CheckRequest) error {
			if strings.TrimSpace(r.Prompt) == "" && strings.TrimSpace(r.Title) == "" {
				return errors.New("llm: check has neither prompt nor title")
			}
			return nil
		},
		key:      func(r CheckRequest) string { return r.Key },
		question: checkQuestion,
		item:     checkItem,
		task: func(first CheckRequest, items []item, jsonObject bool) string {
			return checkTask(first.Language, items, jsonObject)
		},
		decode: decodeCheck,
		outcome: func(r CheckRequest, docs []*evidence.Document, ans checkAnswer, omitted int) CheckOutcome {
			return checkOutcome(r.Language, docs, ans, omitted)
		},
		alone: c.Check,
	})
}

// Fields extracts several fields with as few requests as possible, as Checks does for
// checks: grouped by documents, answered in one object keyed by item id, each value
// verified and re-parsed on its own, a malformed item asked again alone.
func (c *Client) Fields(ctx context.Context, reqs []FieldRequest) []FieldResult {
	return askBatched(ctx, c, reqs, batchKind[FieldRequest, FieldOutcome, fieldAnswer]{
		schemaName: "field_values",
		schema:     fieldSchema,
		group:      func(r FieldRequest) string { return documentsKey(r.Documents, r.Types) },
		docs:       func(r FieldRequest) ([]*evidence.Document, map[uuid.UUID][]string) { return r.Documents, r.Types },
		valid:      validField,
		key:        func(r FieldRequest) string { return r.Key },
		question:   fieldQuestion,
		item:       fieldItem,
		task:       func(_ FieldRequest, items []item, jsonObject bool) string { return fieldTask(items, jsonObject) },
		decode:     decodeField,
		outcome: func(r FieldRequest, docs []*evidence.Document, ans fieldAnswer, omitted int) FieldOutcome {
			return fieldOutcome(r.ValueFormat, docs, ans, omitted)
		},
		alone: c.Field,
	})
}

// batchKind is what batches of checks and of fields differ in: R the request, O its
// outcome, A the decoded answer of one item.
type batchKind[R, O, A any] struct {
	schemaName string
	schema     func() map[string]any
	group      func(R) string // requests with equal groups may share one request
	docs       func(R) ([]*evidence.Document, map[uuid.UUID][]string)
	valid      func(R) error
	key        func(R) string
	question   func(R) string
	item       func(id string, r R) item
	task       func(first R, items []item, jsonObject bool) string
	decode     func(string) (A, error)
	outcome    func(r R, docs []*evidence.Document, ans A, omitted int) O
	alone      func(context.Context, R) (O, error)
}

// askBatched groups reqs by kind.group in batches of at most MaxBatchItems and asks
// each batch in one request (a batch of one as a single request).
func askBatched[R, O, A any](ctx context.Context, c *Client, reqs []R, k batchKind[R, O, A]) []Result[O] {
	out := make([]Result[O], len(reqs))
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		keys[i] = k.group(r)
	}
	for _, group := range batches(keys, c.cfg.MaxBatchItems) {
		if len(group) == 1 {
			i := group[0]
			out[i].Outcome, out[i].Err = k.alone(ctx, reqs[i])
			continue
		}
		askOneBatch(ctx, c, reqs, group, k, out)
	}
	return out
}

// askOneBatch answers the requests of group (indexes into reqs and out) in one request;
// an item the batch does not answer well is asked again alone.
func askOneBatch[R, O, A any](ctx context.Context, c *Client, reqs []R, group []int, k batchKind[R, O, A], out []Result[O]) {
	var asked []int
	for _, i := range group {
		if err := k.valid(reqs[i]); err != nil {
			out[i] = Result[O]{Err: err}
			continue
		}
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return
	}
	first := reqs[asked[0]]
	docs, types := k.docs(first)
	docs = nonNil(docs)
	questions := make([]string, len(asked))
	keys := make([]string, len(asked))
	for n, i := range asked {
		questions[n] = k.question(reqs[i])
		keys[n] = k.key(reqs[i])
	}
	sel := selectPages(docs, types, strings.Join(questions, "\n"), c.cfg.MaxContextChars)
	ids := itemIDs(keys)
	items := make([]item, len(asked))
	for n, i := range asked {
		items[n] = k.item(ids[n], reqs[i])
	}

	answers, err := c.askBatch(ctx, k.schemaName, documentsText(sel), items, k.schema(),
		func(jsonObject bool) string { return k.task(first, items, jsonObject) })
	for n, i := range asked {
		if err != nil && !(errors.Is(err, ErrMalformedOutput) && ctx.Err() == nil) {
			out[i] = Result[O]{Err: err}
			continue
		}
		if err == nil {
			if ans, derr := decodeItem(answers, ids[n], k.decode); derr == nil {
				out[i] = Result[O]{Outcome: k.outcome(reqs[i], docs, ans, sel.omitted)}
				continue
			}
		}
		// The batch as a whole, or this item's answer, was malformed: ask it alone, with
		// the retries of a single request.
		out[i].Outcome, out[i].Err = k.alone(ctx, reqs[i])
	}
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
