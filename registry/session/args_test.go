package session_test

import (
	"encoding/json"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// toolWith is a tool whose parameters are schema, normalized as the
// registry normalizes a manifest's.
func toolWith(t *testing.T, schema string, perms ...string) registry.Tool {
	t.Helper()
	params, required, err := registry.NormalizeSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return registry.Tool{Name: "t", Parameters: params, Required: required, RequiredPermissions: perms}
}

func TestCheckArguments(t *testing.T) {
	const order = `{"properties":{
		"to":{"type":"string"},
		"count":{"type":"integer"},
		"ratio":{"type":"number"},
		"urgent":{"type":"boolean"},
		"priority":{"type":"string","enum":["low","normal","high"]},
		"size":{"enum":[1,2,3]},
		"labels":{"type":"array","items":{"type":"string"}},
		"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}},"required":["sku"]}},
		"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":["string","null"]}},"required":["city"]},
		"note":{"type":["string","null"]},
		"loose":{"description":"no type"},
		"odd":{"type":"int"},
		"matrix":{"type":"array","items":[{"type":"string"}]}
	},"required":["to"]}`
	tests := []struct {
		name, schema, input, wantProblem string
		perms                            []string
	}{
		{name: "all well", schema: order, input: `{"to":"ann","count":3,"ratio":0.5,"urgent":true,"priority":"high","size":2,"labels":["a"],"lines":[{"sku":"x","qty":1}],"address":{"city":"Oslo","zip":null},"note":null}`},
		{name: "empty counts as {}", schema: `{"properties":{"q":{"type":"string"}}}`, input: ""},
		{name: "an integer written 3.0, a size 2.0", schema: order, input: `{"to":"ann","count":3.0,"size":2.0}`},
		{name: "numbers as strings", schema: order, input: `{"to":"ann","count":"3","ratio":" 2.5e1 "}`},
		{name: "null for what is not required", schema: order, input: `{"to":"ann","count":null,"labels":null,"address":null,"priority":null}`},
		{name: "anything where the schema says nothing or what is not known", schema: order, input: `{"to":"ann","loose":[1,{"a":2}],"odd":"x","matrix":[1,2],"extra":{"x":1}}`},
		{name: "a schema with no type at all", schema: `{"properties":{"a":{},"b":{"properties":{"c":{"type":"string"}}}}}`, input: `{"a":1,"b":{"c":"ok"}}`},
		{name: "not an object", schema: order, input: `["ann"]`, wantProblem: "The arguments for 't' are not a JSON object: send one JSON object matching the tool's parameters."},
		{name: "required missing alone keeps its message", schema: order, input: `{"count":1}`, wantProblem: "The arguments for 't' miss the required parameter(s): to. Call it again with them."},
		{
			name: "wrong types", schema: order,
			input:       `{"to":42,"count":2.5,"ratio":"many","urgent":"false","labels":"a","address":"Oslo"}`,
			wantProblem: `The arguments for 't' do not match its parameters: 'address' must be an object, not the string "Oslo"; 'count' must be an integer, not 2.5; 'labels' must be an array, not the string "a"; 'ratio' must be a number, not the string "many"; 'to' must be a string, not 42; 'urgent' must be a boolean, not the string "false". Call it again with them corrected.`,
		},
		{
			name: "enums", schema: order,
			input:       `{"to":"ann","priority":"High","size":4}`,
			wantProblem: `The arguments for 't' do not match its parameters: 'priority' must be one of "low", "normal", "high", not the string "High"; 'size' must be one of 1, 2, 3, not 4. Call it again with them corrected.`,
		},
		{
			name: "nested objects and arrays of objects, a missing required parameter first, then by name", schema: order,
			input:       `{"labels":["a",7],"lines":[{"sku":"x"},{"qty":"two"}],"address":{"zip":5}}`,
			wantProblem: `The arguments for 't' do not match its parameters: 'to' is required; 'address.city' is required; 'address.zip' must be a string or null, not 5; 'labels[1]' must be a string, not 7; 'lines[1].sku' is required; 'lines[1].qty' must be an integer, not the string "two". Call it again with them corrected.`,
		},
		{
			name: "additionalProperties false", schema: `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}},"additionalProperties":false}`,
			input:       `{"a":"x","c":1}`,
			wantProblem: `The arguments for 't' do not match its parameters: 'c' is not a parameter: use 'a', 'b'. Call it again with them corrected.`,
		},
		{
			name: "a long value is cut", schema: `{"properties":{"n":{"type":"number"}}}`,
			input:       `{"n":"ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé"}`,
			wantProblem: `The arguments for 't' do not match its parameters: 'n' must be a number, not a string ("ééééééééééééééééééééééééééééééééééééééé…). Call it again with them corrected.`,
		},
		{
			name: "at most 8 problems", schema: `{"properties":{"a":{"type":"array","items":{"type":"integer"}}}}`,
			input:       `{"a":["1","x","x","x","x","x","x","x","x","x","x"]}`,
			wantProblem: `The arguments for 't' do not match its parameters: 'a[1]' must be an integer, not the string "x"; 'a[2]' must be an integer, not the string "x"; 'a[3]' must be an integer, not the string "x"; 'a[4]' must be an integer, not the string "x"; 'a[5]' must be an integer, not the string "x"; 'a[6]' must be an integer, not the string "x"; 'a[7]' must be an integer, not the string "x"; 'a[8]' must be an integer, not the string "x"; and 2 more. Call it again with them corrected.`,
		},
		{
			name: "secrets are left to AskedSecrets", schema: `{"properties":{"code":{"type":"string"},"secrets":{"type":"array","items":{"type":"string"}}},"required":["code"]}`,
			input: `{"code":"1","secrets":"google"}`, perms: []string{registry.PermissionSecrets},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input, problem := session.CheckArguments(toolWith(t, tt.schema, tt.perms...), tt.input)
			if problem != tt.wantProblem {
				t.Errorf("problem:\n got %s\nwant %s", problem, tt.wantProblem)
			}
			if problem == "" && string(input) != tt.input && !(tt.input == "" && string(input) == "{}") {
				t.Errorf("input %s, want it as given: %s", input, tt.input)
			}
		})
	}
}
