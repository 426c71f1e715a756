// Command pulumi-language-nodejs is a small Node.js language host for the
// Pulumi CLI, written for stackwarden.
//
// Pulumi's own host lives in the Go module
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, which
// the Go module proxy reachable here does not serve, so we cannot build it.
// This host speaks the same gRPC protocol (pulumirpc.LanguageRuntime from
// github.com/pulumi/pulumi/sdk/v3) and hands the real work to the scripts
// shipped in the @pulumi/pulumi npm package: cmd/run for programs and
// cmd/run-policy-pack / cmd/run-plugin for policy packs and plugins.
//
// Supported: Run (JavaScript and TypeScript programs, runtime options
// typescript, tsconfig, nodeargs), RunPlugin (policy packs, plugins),
// GetRequiredPackages/GetRequiredPlugins (scans node_modules for Pulumi
// resource packages), InstallDependencies (npm/yarn/pnpm/bun install), About,
// GetProgramDependencies, GetPluginInfo, Handshake. Code generation RPCs
// (pulumi new/convert/package gen-sdk) answer Unimplemented.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
)

// version is set with -ldflags "-X main.version=..." to the Pulumi release.
var version = "3.0.0-dev"

// exitCodeBail is the exit code @pulumi/pulumi/cmd/run uses after it has
// already reported a user-actionable error to the engine
// (nodeJSProcessExitedAfterLoggingUserActionableMessage).
const exitCodeBail = 32

func main() {
	engineAddr, tracing := parseArgs(os.Args[1:])
	if engineAddr == "" {
		fmt.Fprintln(os.Stderr, "usage: pulumi-language-nodejs [flags] <engine-address>")
		os.Exit(1)
	}
	host := &nodeHost{engineAddr: engineAddr, tracing: tracing}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: could not start server: %v\n", err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of our stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: %v\n", err)
		os.Exit(1)
	}
}

// parseArgs takes the engine address (the last positional argument) and the
// tracing endpoint; logging flags the engine may pass (-v=N, --logtostderr,
// --logflow) are accepted and ignored.
func parseArgs(args []string) (engineAddr, tracing string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			engineAddr = a
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "tracing", "root", "tsconfig", "nodeargs", "packagemanager":
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			if name == "tracing" {
				tracing = value
			}
		}
	}
	return engineAddr, tracing
}

type nodeHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	engineAddr string
	tracing    string

	mu      sync.Mutex
	running []*exec.Cmd
}

func (h *nodeHost) Handshake(
	ctx context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engineAddr = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *nodeHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

// Cancel stops any program or plugin still running.
func (h *nodeHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, cmd := range h.running {
		if cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
	}
	return &emptypb.Empty{}, nil
}

func (h *nodeHost) track(cmd *exec.Cmd) func() {
	h.mu.Lock()
	h.running = append(h.running, cmd)
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for i, c := range h.running {
			if c == cmd {
				h.running = append(h.running[:i], h.running[i+1:]...)
				break
			}
		}
	}
}

// ---------------------------------------------------------------- options

type runtimeOptions struct {
	typescript bool
	tsconfig   string
	nodeargs   []string
}

func optionsOf(info *pulumirpc.ProgramInfo) runtimeOptions {
	o := runtimeOptions{typescript: true}
	var m map[string]any
	if s := info.GetOptions(); s != nil {
		m = s.AsMap()
	}
	if v, ok := m["typescript"]; ok {
		switch t := v.(type) {
		case bool:
			o.typescript = t
		case string:
			o.typescript = t != "false"
		}
	}
	if v, ok := m["tsconfig"].(string); ok {
		o.tsconfig = v
	}
	if v, ok := m["nodeargs"].(string); ok {
		o.nodeargs = strings.Fields(v)
	}
	return o
}

func programDir(info *pulumirpc.ProgramInfo, fallback string) string {
	if d := info.GetProgramDirectory(); d != "" {
		return d
	}
	return fallback
}

// ------------------------------------------------------------------ node

func nodeExecutable() (string, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("could not find 'node' on PATH; install Node.js")
	}
	return p, nil
}

// resolveModule asks node where `module` resolves from `dir`, the way the
// program itself would load it (node_modules up the tree, NODE_PATH).
func resolveModule(node, dir, module string) (string, error) {
	script := fmt.Sprintf("console.log(require.resolve(%q))", module)
	cmd := exec.Command(node, "-e", script)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("it looks like the Pulumi SDK has not been installed: cannot resolve %s from %s "+
			"(run npm install, or set NODE_PATH): %s", module, dir, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func exitCode(err error) (int, bool) {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), true
		}
		return exitErr.ExitCode(), true
	}
	return 0, false
}

// ------------------------------------------------------------------- Run

func (h *nodeHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	pwd := req.GetPwd()
	dir := programDir(info, pwd)
	if pwd == "" {
		pwd = dir
	}
	opts := optionsOf(info)

	node, err := nodeExecutable()
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	runScript, err := resolveModule(node, dir, "@pulumi/pulumi/cmd/run")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	args := append([]string{}, opts.nodeargs...)
	args = append(args, runScript, "--monitor", req.GetMonitorAddress(), "--engine", h.engineAddr)
	if req.GetOrganization() != "" {
		args = append(args, "--organization", req.GetOrganization())
	}
	if info.GetRootDirectory() != "" {
		args = append(args, "--root-directory", info.GetRootDirectory())
	}
	args = append(args, "--project", req.GetProject(), "--stack", req.GetStack(), "--pwd", pwd)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		args = append(args, "--parallel", strconv.Itoa(int(req.GetParallel())))
	}
	if h.tracing != "" {
		args = append(args, "--tracing", h.tracing)
	}
	// "." lets cmd/run pick the entry point from package.json (exports/main).
	entry := info.GetEntryPoint()
	if entry == "" || entry == "." {
		program := "."
		if dir != pwd {
			program = dir
		}
		args = append(args, program)
	} else {
		args = append(args, filepath.Join(dir, entry))
	}
	args = append(args, req.GetArgs()...)

	config, err := json.Marshal(nonNilMap(req.GetConfig()))
	if err != nil {
		return nil, err
	}
	secretKeys, err := json.Marshal(nonNilSlice(req.GetConfigSecretKeys()))
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
	)
	if opts.typescript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	cmd := exec.Command(node, args...)
	cmd.Dir = pwd
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("failed to start node: %v", err)}, nil
	}
	defer h.track(cmd)()
	err = cmd.Wait()
	if err == nil {
		return &pulumirpc.RunResponse{}, nil
	}
	if code, ok := exitCode(err); ok {
		if code == exitCodeBail {
			return &pulumirpc.RunResponse{Bail: true}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", code)}, nil
	}
	return &pulumirpc.RunResponse{Error: err.Error()}, nil
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNilSlice(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ------------------------------------------------------------- RunPlugin

// RunPlugin runs a policy pack (kind "analyzer", via cmd/run-policy-pack,
// which expects `<engine-address> <program>`) or a plugin written in Node.js
// (via cmd/run-plugin, `<program> [args]`), streaming its output back.
func (h *nodeHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	info := req.GetInfo()
	dir := programDir(info, req.GetProgram())
	opts := optionsOf(info)
	node, err := nodeExecutable()
	if err != nil {
		return err
	}

	var script string
	var args []string
	if req.GetKind() == "analyzer" {
		if script, err = resolveModule(node, dir, "@pulumi/pulumi/cmd/run-policy-pack"); err != nil {
			return err
		}
		pluginArgs := req.GetArgs()
		engine := h.engineAddr
		if len(pluginArgs) > 0 {
			engine, pluginArgs = pluginArgs[0], pluginArgs[1:]
		}
		args = append([]string{script, engine, dir}, pluginArgs...)
	} else {
		if script, err = resolveModule(node, dir, "@pulumi/pulumi/cmd/run-plugin"); err != nil {
			return err
		}
		args = append([]string{script, dir}, req.GetArgs()...)
	}
	args = append(append([]string{}, opts.nodeargs...), args...)

	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	if req.GetPwd() != "" && req.GetKind() != "analyzer" {
		cmd.Dir = req.GetPwd()
	}
	cmd.Env = append(os.Environ(), req.GetEnv()...)
	if opts.typescript {
		cmd.Env = append(cmd.Env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if opts.tsconfig != "" {
		cmd.Env = append(cmd.Env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	var sendMu sync.Mutex
	send := func(r *pulumirpc.RunPluginResponse) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return server.Send(r)
	}
	stdout := &streamWriter{send: func(b []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}})
	}}
	stderr := &streamWriter{send: func(b []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}})
	}}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to start node: %w", err)
	}
	defer h.track(cmd)()

	// Stop the plugin when the engine goes away.
	done := make(chan struct{})
	go func() {
		select {
		case <-server.Context().Done():
			if cmd.Process != nil {
				_ = cmd.Process.Kill()
			}
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)

	code := 0
	if err != nil {
		c, ok := exitCode(err)
		if !ok {
			return err
		}
		code = c
	}
	return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(code)}})
}

type streamWriter struct {
	send func([]byte) error
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if err := w.send(append([]byte(nil), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ------------------------------------------------- required packages

type packageJSON struct {
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	Main            string            `json:"main"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
	Pulumi          *struct {
		Resource         bool   `json:"resource"`
		Name             string `json:"name"`
		Version          string `json:"version"`
		Server           string `json:"server"`
		Parameterization *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Value   string `json:"value"` // base64
		} `json:"parameterization"`
	} `json:"pulumi"`
}

func readPackageJSON(path string) (*packageJSON, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p packageJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// nodeModulesDirs lists the node_modules directories node would search from
// dir: dir/node_modules, then each parent's.
func nodeModulesDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		nm := filepath.Join(d, "node_modules")
		if st, err := os.Stat(nm); err == nil && st.IsDir() {
			out = append(out, nm)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// installedPackages walks the node_modules trees visible from dir (nested
// node_modules included) and returns every package.json found.
func installedPackages(dir string) []*packageJSON {
	var out []*packageJSON
	seen := map[string]bool{}
	var walk func(nm string, depth int)
	walk = func(nm string, depth int) {
		real, err := filepath.EvalSymlinks(nm)
		if err != nil || seen[real] || depth > 8 {
			return
		}
		seen[real] = true
		entries, err := os.ReadDir(nm)
		if err != nil {
			return
		}
		var pkgDirs []string
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			if strings.HasPrefix(name, "@") {
				scoped, err := os.ReadDir(filepath.Join(nm, name))
				if err != nil {
					continue
				}
				for _, s := range scoped {
					pkgDirs = append(pkgDirs, filepath.Join(nm, name, s.Name()))
				}
				continue
			}
			pkgDirs = append(pkgDirs, filepath.Join(nm, name))
		}
		for _, pd := range pkgDirs {
			if p, err := readPackageJSON(filepath.Join(pd, "package.json")); err == nil {
				out = append(out, p)
			}
			walk(filepath.Join(pd, "node_modules"), depth+1)
		}
	}
	for _, nm := range nodeModulesDirs(dir) {
		walk(nm, 0)
	}
	return out
}

func requiredPackages(dir string) []*pulumirpc.PackageDependency {
	var out []*pulumirpc.PackageDependency
	seen := map[string]bool{}
	for _, p := range installedPackages(dir) {
		if p.Pulumi == nil || !p.Pulumi.Resource {
			continue
		}
		name := p.Pulumi.Name
		if name == "" {
			name = strings.TrimPrefix(p.Name, "@pulumi/")
		}
		ver := p.Pulumi.Version
		if ver == "" {
			ver = p.Version
		}
		if ver != "" && !strings.HasPrefix(ver, "v") {
			ver = "v" + ver
		}
		dep := &pulumirpc.PackageDependency{Name: name, Kind: "resource", Version: ver, Server: p.Pulumi.Server}
		key := name + "@" + ver
		if pz := p.Pulumi.Parameterization; pz != nil {
			value, err := base64.StdEncoding.DecodeString(pz.Value)
			if err == nil {
				dep.Parameterization = &pulumirpc.PackageParameterization{
					Name: pz.Name, Version: pz.Version, Value: value,
				}
				key += "/" + pz.Name + "@" + pz.Version
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, dep)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (h *nodeHost) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{Packages: requiredPackages(programDir(req.GetInfo(), "."))}, nil
}

//nolint:staticcheck // deprecated RPC, still called by older engines
func (h *nodeHost) GetRequiredPlugins(
	ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	var plugins []*pulumirpc.PluginDependency
	for _, p := range requiredPackages(programDir(req.GetInfo(), req.GetPwd())) {
		if p.Parameterization != nil {
			continue
		}
		plugins = append(plugins, &pulumirpc.PluginDependency{
			Name: p.Name, Kind: p.Kind, Version: p.Version, Server: p.Server,
		})
	}
	return &pulumirpc.GetRequiredPluginsResponse{Plugins: plugins}, nil
}

// ------------------------------------------------------- dependencies

func packageManager(dir string) string {
	for _, c := range []struct{ lock, pm string }{
		{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lock", "bun"}, {"bun.lockb", "bun"},
	} {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, c.lock)); err == nil {
				return c.pm
			}
			if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil || filepath.Dir(d) == d {
				break
			}
		}
	}
	return "npm"
}

func (h *nodeHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest,
	server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	dir := req.GetDirectory()
	if dir == "" {
		dir = programDir(req.GetInfo(), ".")
	}
	pm := packageManager(dir)
	bin, err := exec.LookPath(pm)
	if err != nil {
		return fmt.Errorf("could not find %s on PATH", pm)
	}
	var sendMu sync.Mutex
	cmd := exec.Command(bin, "install")
	cmd.Dir = dir
	cmd.Stdout = &streamWriter{send: func(b []byte) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b})
	}}
	cmd.Stderr = &streamWriter{send: func(b []byte) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b})
	}}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s install failed in %s: %w", pm, dir, err)
	}
	return nil
}

func (h *nodeHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *nodeHost) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := nodeExecutable()
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("node --version: %w", err)
	}
	return &pulumirpc.AboutResponse{
		Executable: node,
		Version:    strings.TrimPrefix(strings.TrimSpace(string(out)), "v"),
		Metadata:   map[string]string{"languageHost": "stackwarden pulumi-language-nodejs " + version},
	}, nil
}

func (h *nodeHost) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	dir := programDir(req.GetInfo(), req.GetPwd())
	var root string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("no package.json found at or above %s", dir)
		}
	}
	pkg, err := readPackageJSON(filepath.Join(root, "package.json"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for n := range pkg.Dependencies {
		names[n] = true
	}
	if req.GetTransitiveDependencies() {
		for n := range pkg.DevDependencies {
			names[n] = true
		}
	}
	var deps []*pulumirpc.DependencyInfo
	for n := range names {
		ver := pkg.Dependencies[n]
		if ver == "" {
			ver = pkg.DevDependencies[n]
		}
		for _, nm := range nodeModulesDirs(root) {
			if p, err := readPackageJSON(filepath.Join(nm, n, "package.json")); err == nil {
				ver = p.Version
				break
			}
		}
		deps = append(deps, &pulumirpc.DependencyInfo{Name: n, Version: ver})
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].Name < deps[j].Name })
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}
