package sdktest

import (
	"net/http"
	"strings"
)

// route is one operation of the API. A nil handle answers 501 not_implemented, as the
// service does for an endpoint it does not offer: the fake knows every path, so a call
// it does not cover fails plainly instead of looking like a missing resource.
type route struct {
	method, path, operation string
	handle                  func(*Server, *call) (int, any, error)
	// locksItself: the handler takes Server.mu itself (long polling must not hold it).
	locksItself bool
}

// routes lists every operation of the API, literal paths before templated ones.
var routes = []route{
	{"GET", "/v1/templates", "listTemplates", (*Server).listTemplates, false},
	{"POST", "/v1/templates", "createTemplate", nil, false},
	{"GET", "/v1/templates/{template_id}", "getTemplate", (*Server).getTemplate, false},
	{"PATCH", "/v1/templates/{template_id}", "updateTemplate", nil, false},
	{"DELETE", "/v1/templates/{template_id}", "deleteTemplate", nil, false},
	{"POST", "/v1/templates/{template_id}/duplicate", "duplicateTemplate", nil, false},
	{"PUT", "/v1/templates/{template_id}/document_requirements", "replaceTemplateDocumentRequirements", nil, false},
	{"PUT", "/v1/templates/{template_id}/check_items", "replaceTemplateCheckItems", nil, false},
	{"PUT", "/v1/templates/{template_id}/data_field_items", "replaceTemplateDataFieldItems", nil, false},
	{"GET", "/v1/submissions", "listSubmissions", (*Server).listSubmissions, false},
	{"POST", "/v1/submissions", "createSubmission", (*Server).createSubmission, false},
	{"GET", "/v1/submissions/{submission_id}", "getSubmission", (*Server).getSubmission, false},
	{"PATCH", "/v1/submissions/{submission_id}", "updateSubmission", nil, false},
	{"DELETE", "/v1/submissions/{submission_id}", "deleteSubmission", nil, false},
	{"POST", "/v1/submissions/{submission_id}/cancel", "cancelSubmission", (*Server).cancelSubmission, false},
	{"GET", "/v1/submissions/{submission_id}/files", "listUploads", (*Server).listUploads, false},
	{"POST", "/v1/submissions/{submission_id}/files", "createUpload", (*Server).createUpload, false},
	{"POST", "/v1/submissions/{submission_id}/document-slots/{slot_id}/files", "createSlotUpload", (*Server).createUpload, false},
	{"GET", "/v1/submissions/{submission_id}/files/{upload_id}", "getUpload", (*Server).getUpload, false},
	{"PATCH", "/v1/submissions/{submission_id}/files/{upload_id}", "updateUpload", nil, false},
	{"DELETE", "/v1/submissions/{submission_id}/files/{upload_id}", "deleteUpload", nil, false},
	{"POST", "/v1/submissions/{submission_id}/evaluations", "startEvaluation", (*Server).startEvaluation, false},
	{"GET", "/v1/submissions/{submission_id}/evaluations/{evaluation_id}", "getEvaluation", (*Server).getEvaluation, false},
	{"GET", "/v1/checks", "listChecks", nil, false},
	{"POST", "/v1/checks", "createCheck", nil, false},
	{"GET", "/v1/checks/{check_id}", "getCheck", nil, false},
	{"PATCH", "/v1/checks/{check_id}", "updateCheck", nil, false},
	{"DELETE", "/v1/checks/{check_id}", "deleteCheck", nil, false},
	{"GET", "/v1/data_fields", "listDataFields", nil, false},
	{"POST", "/v1/data_fields", "createDataField", nil, false},
	{"GET", "/v1/data_fields/{data_field_id}", "getDataField", nil, false},
	{"PATCH", "/v1/data_fields/{data_field_id}", "updateDataField", nil, false},
	{"DELETE", "/v1/data_fields/{data_field_id}", "deleteDataField", nil, false},
	{"GET", "/v1/document_types", "listDocumentTypes", nil, false},
	{"POST", "/v1/document_types", "createDocumentType", nil, false},
	{"GET", "/v1/document_types/{document_type_id}", "getDocumentType", nil, false},
	{"PATCH", "/v1/document_types/{document_type_id}", "updateDocumentType", nil, false},
	{"DELETE", "/v1/document_types/{document_type_id}", "deleteDocumentType", nil, false},
	{"GET", "/v1/events", "listEvents", (*Server).listEvents, false},
	{"GET", "/v1/events/feed", "listEventFeed", (*Server).listEventFeed, true},
	{"POST", "/v1/events/trigger", "triggerEvent", (*Server).triggerEvent, false},
	{"GET", "/v1/events/{event_id}", "getEvent", (*Server).getEvent, false},
	{"POST", "/v1/events/{event_id}/redeliver", "redeliverEvent", (*Server).redeliverEvent, false},
	{"GET", "/v1/webhook_endpoints", "listWebhookEndpoints", (*Server).listWebhookEndpoints, false},
	{"POST", "/v1/webhook_endpoints", "createWebhookEndpoint", (*Server).createWebhookEndpoint, false},
	{"GET", "/v1/webhook_endpoints/{endpoint_id}", "getWebhookEndpoint", (*Server).getWebhookEndpoint, false},
	{"PATCH", "/v1/webhook_endpoints/{endpoint_id}", "updateWebhookEndpoint", nil, false},
	{"DELETE", "/v1/webhook_endpoints/{endpoint_id}", "deleteWebhookEndpoint", (*Server).deleteWebhookEndpoint, false},
	{"POST", "/v1/webhook_endpoints/{endpoint_id}/secret/rotations", "rotateWebhookEndpointSecret", nil, false},
	{"POST", "/v1/webhook_endpoints/{endpoint_id}/test", "testWebhookEndpoint", (*Server).testWebhookEndpoint, false},
}

// match finds the route of method and path and its path parameters. pathKnown tells a
// path served with other methods (405) from an unknown one (404).
func match(method, path string) (rt *route, params map[string]string, pathKnown bool) {
	got := strings.Split(strings.Trim(path, "/"), "/")
	for i := range routes {
		p, ok := matchPath(strings.Split(strings.Trim(routes[i].path, "/"), "/"), got)
		if !ok {
			continue
		}
		pathKnown = true
		if routes[i].method == method {
			rt = &routes[i]
			if rt.handle == nil {
				rt = &route{method: rt.method, path: rt.path, operation: rt.operation, handle: notImplemented(rt.operation)}
			}
			return rt, p, true
		}
	}
	return nil, nil, pathKnown
}

func matchPath(pattern, got []string) (map[string]string, bool) {
	if len(pattern) != len(got) {
		return nil, false
	}
	params := map[string]string{}
	for i, seg := range pattern {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			if got[i] == "" {
				return nil, false
			}
			params[strings.TrimSuffix(name, "}")] = got[i]
			continue
		}
		if seg != got[i] {
			return nil, false
		}
	}
	return params, true
}

func notImplemented(operation string) func(*Server, *call) (int, any, error) {
	return func(*Server, *call) (int, any, error) {
		return 0, nil, newError(http.StatusNotImplemented, "not_implemented", "sdktest does not implement "+operation)
	}
}
