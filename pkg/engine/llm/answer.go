package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Check verdicts the model may give. "failed" belongs to the service, not the model.
const (
	StatusFulfilled     = "fulfilled"
	StatusOpen          = "open"
	StatusCritical      = "critical"
	StatusNotApplicable = "not_applicable"
)

var checkStatuses = []string{StatusFulfilled, StatusOpen, StatusCritical, StatusNotApplicable}

// errInvalidStatus: the model answered with a verdict outside the vocabulary.
var errInvalidStatus = errors.New(`status is not one of "fulfilled", "open", "critical", "not_applicable"`)

type modelCitation struct {
	UploadID string  `json:"upload_id"`
	Page     flexInt `json:"page"`
	Excerpt  string  `json:"excerpt"`
}

type checkAnswer struct {
	Status     string          `json:"status"`
	Confidence *flexFloat      `json:"confidence"`
	Reasoning  string          `json:"reasoning"`
	Citations  []modelCitation `json:"citations"`
}

type fieldAnswer struct {
	Found      *bool           `json:"found"`
	Value      flexString      `json:"value"`
	Confidence *flexFloat      `json:"confidence"`
	Citations  []modelCitation `json:"citations"`
}

func decodeCheck(content string) (checkAnswer, error) {
	var a checkAnswer
	if err := decodeJSON(content, &a); err != nil {
		return a, err
	}
	status, ok := normalizeStatus(a.Status)
	if !ok {
		return a, errInvalidStatus
	}
	a.Status = status
	return a, nil
}

func decodeField(content string) (fieldAnswer, error) {
	var a fieldAnswer
	if err := decodeJSON(content, &a); err != nil {
		return a, err
	}
	if a.Found == nil {
		found := strings.TrimSpace(string(a.Value)) != ""
		a.Found = &found
	}
	return a, nil
}

// decodeJSON reads the one JSON object in content, tolerating code fences and text
// around it.
func decodeJSON(content string, v any) error {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.HasPrefix(strings.TrimSpace(s[:nl]), "{") {
			s = s[nl+1:] // the fence's language tag
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if !strings.HasPrefix(s, "{") {
		start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
		if start < 0 || end < start {
			return errors.New("no JSON object in the answer")
		}
		s = s[start : end+1]
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return errors.New("answer is not the expected JSON object")
	}
	return nil
}

func normalizeStatus(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	for _, v := range checkStatuses {
		if s == v {
			return v, true
		}
	}
	return "", false
}

// clampConfidence maps the model's confidence into [0, 1]; missing or not a number
// counts as 0.5 (no claim either way). Percent-style answers (85) are scaled.
func clampConfidence(f *flexFloat) float64 {
	if f == nil || math.IsNaN(float64(*f)) {
		return 0.5
	}
	v := float64(*f)
	if v > 1 && v <= 100 {
		v /= 100
	}
	return math.Max(0, math.Min(1, v))
}

// flexFloat accepts a JSON number or a numeric string.
type flexFloat float64

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		*f = flexFloat(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil {
		return fmt.Errorf("confidence %q is not a number", s)
	}
	*f = flexFloat(n)
	return nil
}

// flexInt accepts a JSON integer or a numeric string; anything else is 0 (no page).
type flexInt int

func (i *flexInt) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		if n == math.Trunc(n) && math.Abs(n) < 1e9 {
			*i = flexInt(n)
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			*i = flexInt(n)
		}
	}
	return nil
}

// flexString accepts a JSON string, or a number as written; null is "".
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err == nil {
		*s = flexString(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*s = flexString(n.String())
		return nil
	}
	if string(b) == "null" {
		*s = ""
		return nil
	}
	return errors.New("value is not a string")
}
