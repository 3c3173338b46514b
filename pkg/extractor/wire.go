package extractor

// The extractor's HTTP protocol. A request's body is the document's bytes
// (application/octet-stream); its settings are query parameters. Answers:
//
//	200  the result: extract.Result as JSON, or the page's PNG
//	422  a refusal of the document: failureBody, which the client turns back into the
//	     *extract.Failure the tools gave
//	400  a malformed request (a bug in the caller)
//	413  a body over the extractor's limit
//	503  every slot busy for longer than the queue wait (Retry-After), or draining
//	500  anything else (a missing tool, a full disk): worth a retry
const (
	pathExtract = "/v1/extract"
	pathRender  = "/v1/render"
	pathReady   = "/readyz"
	pathHealth  = "/healthz"

	paramDeclared    = "declared"      // the content type the uploader declared ("" for none)
	paramMaxPages    = "max_pages"     // extract.Options.MaxPages
	paramMaxOCRPages = "max_ocr_pages" // extract.Options.MaxOCRPages
	paramLanguages   = "languages"     // extract.Options.Languages
	paramTimeout     = "timeout"       // Go duration: the file's budget, or the render's
	paramMaxMemory   = "max_memory"    // extract.Limits.MaxMemory in bytes
	paramPage        = "page"          // the page to render, from 1
	paramDPI         = "dpi"           // the resolution to render at
)

// failureBody is a 422 answer: the document's refusal, with an upload failure_code of
// the openapi contract.
type failureBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// errorBody is the answer to every other refusal or error.
type errorBody struct {
	Error string `json:"error"`
}
