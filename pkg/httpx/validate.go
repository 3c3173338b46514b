package httpx

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
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
}

// NewContract prepares the router. Servers are dropped so routing matches on the path
// alone, whatever host and scheme the service is reached by.
func NewContract(doc *openapi3.T) (*Contract, error) {
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
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
			opts := *ct.options
			// Multipart uploads are streamed by their handler; validating the body here
			// would buffer it whole.
			if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); mt == echo.MIMEMultipartForm {
				opts.ExcludeRequestBody = true
			}
			checked := req
			if opts.ExcludeRequestBody {
				// kin-openapi's security check reads the whole body into memory to replay
				// it; an upload must stream, so the check sees a request without one.
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
