package sdktest

import (
	"net/http"
	"strings"
	"time"

	"github.com/doceval/doceval/gen/client"
)

// The two builtin templates with the document requirements the API documents for them.
// Their check and data-field items are a small stand-in for the service's, and labels
// and descriptions are placeholders: tests should not depend on them.
var builtinTemplates = []client.TemplateDetail{
	builtinTemplate(0, "personal_real_estate_financing", "Personal real estate financing", true,
		requirement("id_card", true, false), requirement("salary_statement", true, true),
		requirement("bank_statement", true, true), requirement("property_expose", true, false),
		requirement("purchase_contract", false, false), requirement("land_register_extract", false, false),
		requirement("living_area_calculation", false, false), requirement("energy_certificate", false, false),
		requirement("self_disclosure", false, false)),
	builtinTemplate(1, "personal_loan", "Personal loan", false,
		requirement("id_card", true, false), requirement("salary_statement", true, true),
		requirement("bank_statement", true, true)),
}

// defaultTemplateID is the template createSubmission uses without template_id.
const defaultTemplateID = "personal_real_estate_financing"

var catalogEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func builtinTemplate(position int, key, name string, isDefault bool, requirements ...client.DocumentRequirement) client.TemplateDetail {
	created := catalogEpoch.Add(time.Duration(position) * time.Second)
	return client.TemplateDetail{
		Id: key, Key: key, DisplayName: name, Builtin: true, IsDefault: isDefault, Revision: 1,
		CreatedAt: created, UpdatedAt: created, DocumentRequirements: requirements,
		CheckItems: []client.CheckItem{
			{CheckId: "required_documents_present", Key: "required_documents_present", Title: "Required documents present"},
			{CheckId: "documents_readable", Key: "documents_readable", Title: "Documents readable"},
			{CheckId: "name_consistency", Key: "name_consistency", Title: "Name consistency"},
		},
		DataFieldItems: []client.DataFieldItem{
			{DataFieldId: "applicant_full_name", Key: "applicant_full_name", DisplayName: "Applicant full name", Required: true, ConfidenceThreshold: 0.7},
			{DataFieldId: "net_monthly_income", Key: "net_monthly_income", DisplayName: "Net monthly income", Required: true, ConfidenceThreshold: 0.7},
		},
	}
}

func requirement(documentType string, required, multiple bool) client.DocumentRequirement {
	label := documentTypeLabel(documentType)
	return client.DocumentRequirement{
		DocumentTypeId: documentType, Key: documentType, Label: label, Description: label + " (sdktest placeholder)",
		Required: required, AllowMultipleFiles: multiple,
	}
}

// documentTypeLabel makes "Salary statement" of "salary_statement".
func documentTypeLabel(key string) string {
	label := strings.ReplaceAll(key, "_", " ")
	return strings.ToUpper(label[:1]) + label[1:]
}

// builtinDocumentTypes are the builtin document-type keys, which
// extra_document_requirements may name.
var builtinDocumentTypes = map[string]bool{
	"id_card": true, "passport": true, "self_disclosure": true, "salary_statement": true,
	"employment_contract": true, "tax_assessment": true, "pension_statement": true,
	"bank_statement": true, "property_expose": true, "purchase_contract": true,
	"land_register_extract": true, "floor_plan": true, "living_area_calculation": true,
	"energy_certificate": true, "other": true,
}

func findTemplate(id string) (client.TemplateDetail, bool) {
	for _, t := range builtinTemplates {
		if t.Id == id {
			return t, true
		}
	}
	return client.TemplateDetail{}, false
}

func (s *Server) listTemplates(c *call) (int, any, error) {
	summaries := make([]client.Template, len(builtinTemplates))
	for i, t := range builtinTemplates {
		summaries[i] = client.Template{
			Id: t.Id, Key: t.Key, DisplayName: t.DisplayName, Builtin: t.Builtin, IsDefault: t.IsDefault,
			Archived: t.Archived, Revision: t.Revision, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		}
	}
	page, err := paginate(c, summaries)
	return http.StatusOK, page, err
}

func (s *Server) getTemplate(c *call) (int, any, error) {
	t, ok := findTemplate(c.params["template_id"])
	if !ok {
		return 0, nil, notFound("template")
	}
	return http.StatusOK, t, nil
}
