package pluginv1_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsCurrent regenerates the Go code from plugin.proto with
// the pinned generators of build/tools and compares it with what is
// committed: run `make proto` when it fails.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pinned generators")
	}
	protoDir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(protoDir, "..", "build", "tools")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
		"github.com/bufbuild/buf/cmd/buf",
		"google.golang.org/protobuf/cmd/protoc-gen-go",
		"google.golang.org/grpc/cmd/protoc-gen-go-grpc")
	build.Dir = tools
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build generators: %v\n%s", err, out)
	}
	out := t.TempDir()
	template := fmt.Sprintf(`{"version":"v2","plugins":[`+
		`{"local":%q,"out":".","opt":"paths=source_relative"},`+
		`{"local":%q,"out":".","opt":"paths=source_relative"}]}`,
		filepath.Join(bin, "protoc-gen-go"), filepath.Join(bin, "protoc-gen-go-grpc"))
	gen := exec.Command(filepath.Join(bin, "buf"), "generate", "--template", template, "-o", out)
	gen.Dir = protoDir
	gen.Env = append(os.Environ(), "BUF_CACHE_DIR="+t.TempDir())
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("buf generate: %v\n%s", err, b)
	}
	for _, f := range []string{"plugin.pb.go", "plugin_grpc.pb.go"} {
		want, err := os.ReadFile(filepath.Join(out, "pluginv1", f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("proto/pluginv1/%s is not what plugin.proto generates: run `make proto`", f)
		}
	}
}
