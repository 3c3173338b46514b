package partnercli

import (
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// spec is the part of openapi/openapi.yaml these tests read.
type spec struct {
	Paths      map[string]map[string]yaml.Node `yaml:"paths"`
	Components struct {
		Schemas struct {
			EventType struct {
				Enum []string `yaml:"enum"`
			} `yaml:"EventType"`
		} `yaml:"schemas"`
	} `yaml:"components"`
}

func readSpec(t *testing.T) spec {
	t.Helper()
	b, err := os.ReadFile("../../../openapi/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var s spec
	if err := yaml.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// specOperations maps each operationId of the spec to "METHOD path".
func specOperations(t *testing.T) map[string]string {
	t.Helper()
	ops := map[string]string{}
	for path, methods := range readSpec(t).Paths {
		for method, node := range methods {
			var op struct {
				OperationID string `yaml:"operationId"`
			}
			if node.Kind != yaml.MappingNode || node.Decode(&op) != nil || op.OperationID == "" {
				continue // path-level parameters
			}
			ops[op.OperationID] = strings.ToUpper(method) + " " + path
		}
	}
	if len(ops) == 0 {
		t.Fatal("no operations in the spec")
	}
	return ops
}

// commandsByOperation walks the command tree: operationId → the commands calling it.
func commandsByOperation(root *cobra.Command) map[string][]string {
	out := map[string][]string{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, id := range strings.Split(c.Annotations[operationsAnnotation], ",") {
			if id != "" {
				out[id] = append(out[id], c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// Every operation of openapi/openapi.yaml has a command: a new operation without one
// fails here, naming it.
func TestEveryOperationHasACommand(t *testing.T) {
	t.Parallel()
	commands := commandsByOperation((&app{}).rootCommand())
	ops := specOperations(t)
	ids := make([]string, 0, len(ops))
	for id := range ops {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			if len(commands[id]) == 0 {
				t.Errorf("%s (%s) has no command; add one and annotate it with calls(cmd, %q)", id, ops[id], id)
			}
		})
	}
	// And no command names an operation the spec does not have (a rename, a typo).
	for id, paths := range commands {
		if _, ok := ops[id]; !ok {
			t.Errorf("%v call %q, which openapi.yaml does not define", paths, id)
		}
	}
}

// Every command has a summary, and every command that runs on its own an example.
func TestEveryCommandHasHelpAndExamples(t *testing.T) {
	t.Parallel()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Short == "" {
			t.Errorf("%s has no Short", c.CommandPath())
		}
		isGroup := c.HasSubCommands()
		builtin := c.Name() == "completion" || c.Name() == "help" || (c.HasParent() && c.Parent().Name() == "completion")
		if !isGroup && !builtin && c.Example == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	root := (&app{}).rootCommand()
	root.InitDefaultCompletionCmd()
	walk(root)
}

// The event types offered for completion are those of the spec's EventType.
func TestEventTypesMatchTheSpec(t *testing.T) {
	t.Parallel()
	want := readSpec(t).Components.Schemas.EventType.Enum
	got := slices.Clone(eventTypes)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("eventTypes %v, spec EventType %v", got, want)
	}
}
