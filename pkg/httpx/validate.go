package httpx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/auth"
)

// PermissionExtension is the operation extension in openapi.yaml naming the permission
// an operation needs. The spec is the one place that says so.
const PermissionExtension = "x-doceval-permission"

// Contract routes requests through the embedded OpenAPI document: unknown paths answer
// 404, unknown methods 405, missing permissions 403 permission_denied, and requests
// that do not match the document 400 invalid_request or 422 invalid_field with param.
type Contract struct {
	router  routers.Router
	options *openapi3filter.Options
	limits  BodyLimits
}

// BodyLimits caps request bodies: every body at JSON bytes, except a multipart body sent
// to an operation that declares one (the uploads), which may reach Upload bytes.
// Reading past a cap fails with *http.MaxBytesError, which answers 413; the upload
// handler checks the file's own limit first, so an upload over it is 413 file_too_large.
// An upload whose bytes stop arriving for UploadIdle is cut off with 400
// invalid_request (0: never).
type BodyLimits struct {
	JSON, Upload int64
	UploadIdle   time.Duration
}

// NewContract prepares the router. The router's copy of doc has no servers, so routing
// matches on the path alone, whatever host and scheme the service is reached by; doc
// itself keeps them (the served /openapi.json names its servers).
func NewContract(doc *openapi3.T, limits BodyLimits) (*Contract, error) {
	routed := *doc
	routed.Servers = nil
	router, err := gorillamux.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("openapi router: %w", err)
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			if _, err := OperationPermission(op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
		}
	}
	return &Contract{
		router: router,
		limits: limits,
		options: &openapi3filter.Options{
			// Authentication happened before, with its own error codes.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			// Handlers bind exactly the value that was validated (member names matched
			// exactly, defaults applied), never a second, case-insensitive decode that
			// would let {"Title": ""} past the schema.
			KeepValidatedValue: true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{
				// Ids are UUIDv7, which RFC 4122's pattern rejects.
				openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
			},
		},
	}, nil
}

// OperationPermission reads an operation's permission extension.
func OperationPermission(op *openapi3.Operation) (auth.Permission, error) {
	raw, ok := op.Extensions[PermissionExtension]
	if !ok {
		return "", fmt.Errorf("operation %s has no %s", op.OperationID, PermissionExtension)
	}
	s, ok := raw.(string)
	if !ok || !auth.Permission(s).IsKnown() {
		return "", fmt.Errorf("operation %s: %s %v is not a known permission", op.OperationID, PermissionExtension, raw)
	}
	return auth.Permission(s), nil
}

// Middleware applies the contract to each request. It runs after Authenticate.
func (ct *Contract) Middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			route, pathParams, err := ct.router.FindRoute(req)
			switch {
			case errors.Is(err, routers.ErrMethodNotAllowed):
				return apierr.New(http.StatusMethodNotAllowed, apierr.MethodNotAllowed, fmt.Sprintf("%s is not allowed on %s", req.Method, req.URL.Path))
			case err != nil:
				return apierr.NotFoundf("no endpoint at %s", req.URL.Path)
			}
			// Path ids reach handlers unescaped: %FF must not get to the database.
			for i, name := range c.ParamNames() {
				if v := c.ParamValues()[i]; !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
					return apierr.Field(name, name+" must be valid UTF-8 text")
				}
			}
			if !utf8.ValidString(req.URL.Path) {
				return apierr.NotFoundf("no endpoint at this path")
			}
			for name, vs := range req.URL.Query() {
				for _, v := range vs {
					if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
						return apierr.Field(name, name+" must be valid UTF-8 text")
					}
				}
			}
			perm, err := OperationPermission(route.Operation)
			if err != nil {
				return err
			}
			if p, ok := auth.FromContext(req.Context()); !ok || !p.Can(perm) {
				return apierr.New(http.StatusForbidden, apierr.PermissionDenied, fmt.Sprintf("this API key lacks the %s permission", perm))
			}
			upload, err := ct.strictBody(c.Response(), req, route.Operation)
			if err != nil {
				return err
			}
			opts := *ct.options
			checked := req
			if upload {
				// Multipart uploads are streamed by their handler: validating the body here
				// would buffer it whole, and kin-openapi's security check reads the whole
				// body into memory to replay it, so the check sees a request without one.
				opts.ExcludeRequestBody = true
				checked = req.WithContext(req.Context())
				checked.Body = http.NoBody
			}
			in := &openapi3filter.RequestValidationInput{Request: checked, PathParams: pathParams, Route: route, Options: &opts}
			if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
				return validationError(err)
			}
			if vb, ok := req.Body.(interface{ ValidatedValue() any }); ok {
				if path, found := findNUL(vb.ValidatedValue(), nil); found {
					param := FieldPath(path)
					if param == "" {
						param = "body"
					}
					return apierr.Field(param, param+": must not contain NUL (U+0000) characters")
				}
			}
			return next(c)
		}
	}
}

// MaxJSONDepth is how deeply a request's JSON may nest objects and arrays. It keeps
// free-form members such as metadata far from PostgreSQL's parser stack limit.
const MaxJSONDepth = 32

// strictBody holds a request body to the operation's declared content types and caps
// its size. A multipart body sent to an operation that declares one (an upload) streams
// to its handler under the upload cap (upload is true). A JSON body is read whole under
// the JSON cap and must be exactly one JSON value nested at most MaxJSONDepth deep. An
// operation without a request body refuses a non-empty body of any type but JSON (which
// it ignores). Refusals are 400 invalid_request, the contract's answer to a wrong
// content type or a malformed body.
func (ct *Contract) strictBody(w http.ResponseWriter, req *http.Request, op *openapi3.Operation) (upload bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return false, nil
	}
	header := req.Header.Get(echo.HeaderContentType)
	mt, _, _ := mime.ParseMediaType(header)
	declared := declaredContentTypes(op)
	switch {
	case len(declared) == 0:
		if req.ContentLength != 0 && header != "" && mt != echo.MIMEApplicationJSON {
			return false, apierr.BadRequest(fmt.Sprintf("%s takes no request body; got one of type %q", op.OperationID, header))
		}
		req.Body = http.MaxBytesReader(w, req.Body, ct.limits.JSON)
		return false, nil
	case header == "" && req.ContentLength == 0:
		return false, nil // no body at all: the schema says whether one is required
	case !slices.Contains(declared, mt):
		return false, apierr.BadRequest(fmt.Sprintf("%s takes Content-Type %s, not %q", op.OperationID, strings.Join(declared, " or "), header))
	case mt == echo.MIMEMultipartForm:
		// The multipart parser reads 4 KiB at a time; a large buffer in front of the
		// connection turns that into few, large socket reads.
		limited := http.MaxBytesReader(w, guardStall(w, req.Body, ct.limits.UploadIdle), ct.limits.Upload)
		req.Body = bufferedBody{Reader: bufio.NewReaderSize(limited, 256<<10), Closer: limited}
		return true, nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, req.Body, ct.limits.JSON))
	_ = req.Body.Close()
	if err != nil {
		var maxBytes *http.MaxBytesError
		if errors.As(err, &maxBytes) {
			return false, err // ErrorHandler answers 413
		}
		return false, apierr.BadRequest("the request body could not be read")
	}
	if err := checkJSON(b, MaxJSONDepth); err != nil {
		return false, apierr.BadRequest(err.Error())
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return false, nil
}

// declaredContentTypes lists the media types an operation's request body may take.
func declaredContentTypes(op *openapi3.Operation) []string {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	types := make([]string, 0, len(op.RequestBody.Value.Content))
	for mt := range op.RequestBody.Value.Content {
		types = append(types, mt)
	}
	slices.Sort(types)
	return types
}

// checkJSON accepts b when it is empty (the schema decides whether a body is required)
// or exactly one JSON value, with nothing but white space after it, whose objects and
// arrays nest at most maxDepth deep.
func checkJSON(b []byte, maxDepth int) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	depth, values := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if depth > 0 {
				return errors.New("the request body is not valid JSON: it ends inside a value")
			}
			return nil
		}
		if err != nil {
			return errors.New("the request body is not valid JSON")
		}
		if depth == 0 {
			values++
			if values > 1 {
				return errors.New("the request body holds data after its JSON value")
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			if depth > maxDepth {
				return fmt.Errorf("the request body nests deeper than %d levels", maxDepth)
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// findNUL finds a string holding U+0000 (which PostgreSQL text cannot store) in a
// decoded JSON value, and returns its path.
func findNUL(v any, path []string) ([]string, bool) {
	switch v := v.(type) {
	case string:
		return path, strings.ContainsRune(v, 0)
	case []any:
		for i, x := range v {
			if p, ok := findNUL(x, append(path, strconv.Itoa(i))); ok {
				return p, true
			}
		}
	case map[string]any:
		for k, x := range v {
			if strings.ContainsRune(k, 0) {
				return append(path, strings.ReplaceAll(k, "\x00", "")), true
			}
			if p, ok := findNUL(x, append(path, k)); ok {
				return p, true
			}
		}
	}
	return nil, false
}

// validationError maps a kin-openapi error to the envelope's codes: malformed requests
// (bad JSON, missing body, wrong content type) are 400 invalid_request; a field that
// fails its schema is 422 invalid_field with param naming it.
func validationError(err error) error {
	var maxBytes *http.MaxBytesError
	if errors.As(err, &maxBytes) {
		return err // ErrorHandler answers 413
	}
	var reqErr *openapi3filter.RequestError
	if !errors.As(err, &reqErr) {
		return apierr.BadRequest(err.Error())
	}
	if reqErr.Parameter != nil {
		return apierr.Field(reqErr.Parameter.Name, fmt.Sprintf("%s %s: %s", reqErr.Parameter.In, reqErr.Parameter.Name, reason(reqErr.Err, reqErr.Reason)))
	}
	if errors.Is(reqErr.Err, openapi3filter.ErrInvalidRequired) {
		return apierr.BadRequest("a JSON request body is required")
	}
	var schemaErr *openapi3.SchemaError
	if errors.As(reqErr.Err, &schemaErr) {
		param := FieldPath(schemaErr.JSONPointer())
		if param == "" {
			return apierr.BadRequest("the request body must be a JSON object: " + schemaErr.Reason)
		}
		return apierr.Field(param, fmt.Sprintf("%s: %s", param, reason(schemaErr, "")))
	}
	if reqErr.RequestBody != nil {
		var parseErr *openapi3filter.ParseError
		if errors.As(reqErr.Err, &parseErr) {
			return apierr.BadRequest("the request body is not valid JSON")
		}
	}
	return apierr.BadRequest(reason(reqErr.Err, reqErr.Reason))
}

func reason(err error, fallback string) string {
	var schemaErr *openapi3.SchemaError
	if errors.As(err, &schemaErr) {
		if schemaErr.SchemaField == "format" && schemaErr.Schema != nil {
			return "must be a valid " + schemaErr.Schema.Format // not the format's regular expression
		}
		return schemaErr.Reason
	}
	var parseErr *openapi3filter.ParseError
	if errors.As(err, &parseErr) && parseErr.Reason != "" {
		return parseErr.Reason
	}
	if err != nil {
		return err.Error()
	}
	return fallback
}

// FieldPath renders a JSON pointer as the param form clients see: items[2].check_id.
func FieldPath(pointer []string) string {
	var b strings.Builder
	for _, part := range pointer {
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}
