package console

import (
	"net/http"

	"github.com/doceval/doceval/pkg/blob"
)

// pageRenderer renders upload pages as images for the document viewer.
type pageRenderer struct{}

func newPageRenderer(_ *blob.Store, _ Settings) *pageRenderer { return &pageRenderer{} }

func (a *app) viewer(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	return errBadInput
}

func (a *app) pageImage(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	return errBadInput
}
