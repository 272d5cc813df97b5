// Driver (contract v1.2, docs/driver-contract.md) for the official MCP Go SDK's client,
// github.com/modelcontextprotocol/go-sdk/mcp. Go has no driver kit, so this program does the
// kit's part too (drivers/kit/README.md): it refuses an unsupported transport or op with exit
// 127 and a malformed context with exit 2 before anything runs, runs the steps in order,
// prints one JSON line per step on stdout (everything else goes to stderr) and exits 0.
//
//	go build -o go-sdk-driver . && mcp-ping-conformance run -- $PWD/go-sdk-driver
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const name = "go-sdk-driver"

type step struct {
	Op        string         `json:"op"`
	Name      *string        `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Calls     []step         `json:"calls"`
	Ms        *int64         `json:"ms"`
	TimeoutMs *int64         `json:"timeout_ms"`
}

type invocation struct {
	transport, protocolVersion, url string
	command                         []string
	steps                           []step
}

var ops = map[string]bool{"connect": true, "call_tool": true, "call_tools_concurrently": true,
	"list_tools": true, "ping": true, "idle": true, "close": true}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, name+": "+format+"\n", args...) }

func refuse(status int, format string, args ...any) {
	logf(format, args...)
	os.Exit(status)
}

// read returns what the suite asked for, or exits 127 (unsupported) or 2 (malformed).
func read() invocation {
	var in invocation
	env := func(key string) string {
		value := os.Getenv(key)
		if value == "" {
			refuse(2, "%s is not set", key)
		}
		return value
	}
	in.transport = env("MCP_CONFORMANCE_TRANSPORT")
	if in.transport != "stdio" && in.transport != "streamable-http" && in.transport != "sse" {
		refuse(127, "transport '%s' is not supported", in.transport)
	}
	in.protocolVersion = env("MCP_CONFORMANCE_PROTOCOL_VERSION")
	var ctxJSON struct {
		Server struct {
			Command []string `json:"command"`
			URL     string   `json:"url"`
		} `json:"server"`
		Steps []json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal([]byte(env("MCP_CONFORMANCE_CONTEXT")), &ctxJSON); err != nil || ctxJSON.Steps == nil {
		refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: %v", err)
	}
	for i, raw := range ctxJSON.Steps {
		var s step
		if err := json.Unmarshal(raw, &s); err != nil || s.Op == "" {
			refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: steps[%d] must be an object with a string 'op'", i)
		}
		if !ops[s.Op] {
			refuse(127, "steps[%d]: unsupported op '%s'", i, s.Op)
		}
		in.steps = append(in.steps, s)
	}
	for i, s := range in.steps {
		bad := (s.Op == "call_tool" && s.Name == nil) || (s.Op == "idle" && (s.Ms == nil || *s.Ms < 0)) ||
			(s.TimeoutMs != nil && *s.TimeoutMs < 1) || (s.Op == "call_tools_concurrently" && len(s.Calls) < 2)
		for _, call := range s.Calls {
			bad = bad || call.Name == nil
		}
		if bad {
			refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: steps[%d] (%s) lacks a required field", i, s.Op)
		}
	}
	in.command = ctxJSON.Server.Command
	if len(os.Args) > 1 && strings.Contains(os.Args[len(os.Args)-1], "://") {
		in.url = os.Args[len(os.Args)-1]
	} else {
		in.url = ctxJSON.Server.URL
	}
	if (in.transport == "stdio" && len(in.command) == 0) || (in.transport != "stdio" && in.url == "") {
		refuse(2, "malformed MCP_CONFORMANCE_CONTEXT: no server command or URL for %s", in.transport)
	}
	return in
}

type driver struct {
	in      invocation
	session *mcp.ClientSession
}

func (d *driver) connect() (any, error) {
	var transport mcp.Transport
	switch d.in.transport {
	case "stdio":
		cmd := exec.Command(d.in.command[0], d.in.command[1:]...)
		cmd.Stderr = os.Stderr // the server's stderr is evidence, never a pipe nobody reads
		transport = &mcp.CommandTransport{Command: cmd}
	case "sse":
		transport = &mcp.SSEClientTransport{Endpoint: d.in.url}
	default:
		transport = &mcp.StreamableClientTransport{Endpoint: d.in.url}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-ping-conformance-go-sdk-driver", Version: "0.1.0"},
		&mcp.ClientOptions{Logger: logger})
	// The SDK offers the revision it is given (ClientSessionOptions.ProtocolVersion): a
	// 2026-07-28 one starts with server/discover, an earlier one with initialize.
	session, err := client.Connect(context.Background(), transport,
		&mcp.ClientSessionOptions{ProtocolVersion: d.in.protocolVersion})
	if err != nil {
		return nil, err
	}
	d.session = session
	return session.InitializeResult(), nil
}

// requestContext carries the step's timeout_ms (contract v1.1), the Go way to give one request
// a deadline; without it the SDK's default applies (none).
func requestContext(s step) (context.Context, context.CancelFunc) {
	if s.TimeoutMs != nil {
		return context.WithTimeout(context.Background(), time.Duration(*s.TimeoutMs)*time.Millisecond)
	}
	return context.WithCancel(context.Background())
}

func (d *driver) callTool(s step) (any, error) {
	ctx, cancel := requestContext(s)
	defer cancel()
	arguments := s.Arguments
	if arguments == nil {
		arguments = map[string]any{}
	}
	return d.session.CallTool(ctx, &mcp.CallToolParams{Name: *s.Name, Arguments: arguments})
}

func (d *driver) run(s step) (any, error) {
	if d.session == nil && s.Op != "connect" && s.Op != "idle" {
		return nil, errors.New("not connected")
	}
	switch s.Op {
	case "connect":
		return d.connect()
	case "call_tool":
		return d.callTool(s)
	case "call_tools_concurrently":
		// One goroutine per call, all in flight at once; each settles into its own entry.
		entries := make([]map[string]any, len(s.Calls))
		var wg sync.WaitGroup
		for i, call := range s.Calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				result, err := d.callTool(call)
				entries[i] = outcome(result, err)
			}()
		}
		wg.Wait()
		return map[string]any{"calls": entries}, nil
	case "list_tools":
		ctx, cancel := requestContext(s)
		defer cancel()
		return d.session.ListTools(ctx, nil)
	case "ping":
		ctx, cancel := requestContext(s)
		defer cancel()
		return nil, d.session.Ping(ctx, nil)
	case "idle":
		time.Sleep(time.Duration(*s.Ms) * time.Millisecond)
		return nil, nil
	default: // close
		return nil, d.session.Close()
	}
}

// outcome is a step's (or a concurrent call's) "ok" with its result or error: "code" only for
// a JSON-RPC error, never an HTTP status.
func outcome(result any, err error) map[string]any {
	if err != nil {
		failure := map[string]any{"message": err.Error()}
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			failure["code"] = rpc.Code
		}
		return map[string]any{"ok": false, "error": failure}
	}
	if data, _ := json.Marshal(result); result == nil || string(data) == "null" {
		result = map[string]any{}
	}
	return map[string]any{"ok": true, "result": result}
}

func main() {
	in := read()
	// The step lines go to a copy of stdout; fd 1 then points at stderr, so that nothing
	// else (a library's print, a child process) can reach the report.
	reportFd, err := syscall.Dup(1)
	if err == nil {
		err = syscall.Dup3(2, 1, 0)
	}
	if err != nil {
		refuse(2, "cannot set up stdout: %v", err)
	}
	report := os.NewFile(uintptr(reportFd), "report")
	d := &driver{in: in}
	for i, s := range in.steps {
		result, err := d.run(s)
		if err != nil {
			logf("step %d (%s) failed: %v", i, s.Op, err)
		}
		line := outcome(result, err)
		line["step"], line["op"] = i, s.Op
		data, _ := json.Marshal(line)
		report.Write(append(data, '\n'))
	}
	os.Exit(0) // at once: goroutines or a child process the SDK left must not keep us alive
}
