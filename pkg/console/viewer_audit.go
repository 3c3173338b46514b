package console

import (
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Staff opening an applicant's document leaves an audit entry, document.view: who (the
// operator, address, browser), which upload of which submission of which client, which
// page, when. Every load of the viewer page records one, before the page is shown (no
// entry, no document). The page's image is fetched by the viewer right after, so an
// image request records nothing when its session recorded a view of that upload within
// viewAuditWindow in this process; an image fetched on its own (outside the viewer)
// records one, so no way to the bytes goes unrecorded, and none floods the log.

const viewAuditWindow = 10 * time.Minute

// viewAudit remembers, per session and upload, when a view was last recorded.
type viewAudit struct {
	mu   sync.Mutex
	seen map[viewKey]time.Time
}

type viewKey struct {
	session string // the session's token hash
	upload  uuid.UUID
}

// due says whether a view of the key is to be recorded now, and if so marks it recorded.
func (v *viewAudit) due(k viewKey, now time.Time, always bool) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen == nil {
		v.seen = map[viewKey]time.Time{}
	}
	if last, ok := v.seen[k]; ok && !always && now.Sub(last) < viewAuditWindow {
		return false
	}
	if len(v.seen) >= 10000 { // forget what no longer suppresses anything
		for key, at := range v.seen {
			if now.Sub(at) >= viewAuditWindow {
				delete(v.seen, key)
			}
		}
	}
	v.seen[k] = now
	return true
}

// recordView records that the operator opened page v of an upload (via "page": the
// viewer, "image": the page's image alone), unless it was recorded just now (images).
func (a *app) recordView(r *http.Request, rs *reqState, v viewedPage, via string) error {
	key := viewKey{session: string(rs.sess.TokenHash), upload: v.upload}
	if !a.views.due(key, a.st.Now(), via == "page") {
		return nil
	}
	err := a.st.RecordAudit(r.Context(), a.actorOf(r, rs.op), "document.view", "upload", v.upload.String(), map[string]any{
		"submission_id": v.submission, "api_client_id": v.client, "page": v.page, "via": via,
	})
	if err != nil {
		a.views.forget(key)
	}
	return err
}

func (v *viewAudit) forget(k viewKey) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.seen, k)
}
