// Package pgtest starts throwaway PostgreSQL clusters for tests and
// benchmarks, and streaming replicas of them: initdb (or pg_basebackup) in
// a new temporary directory, then the server on a Unix socket in that
// directory only (no TCP port, so that test binaries running at once never
// collide), owned by the test and removed when it ends. It runs Debian's
// postgresql binaries (/usr/lib/postgresql/<major>/bin, the newest;
// CHAINHOST_PG_BIN names another directory). PostgreSQL refuses to run as
// root: a test run as root runs the cluster as the unprivileged system
// user the package creates, postgres (docs/data-api.md, "Scaling out").
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/internal/syncbuf"
)

// binEnv names a directory holding initdb and postgres, instead of the
// newest /usr/lib/postgresql/<major>/bin.
const binEnv = "CHAINHOST_PG_BIN"

// superuser is the cluster's superuser role; every local connection is
// trusted.
const superuser = "postgres"

// systemUser is the unprivileged account a root test runs the cluster as.
const systemUser = "postgres"

// startTimeout bounds initdb and the server's start.
const startTimeout = 60 * time.Second

// Cluster is a running throwaway cluster.
type Cluster struct {
	dir  string // the cluster's directory: data/ and the socket
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{}
	dbs  atomic.Int64 // databases made by NewDatabase
}

// bin returns the directory of the PostgreSQL server binaries.
func bin() (string, error) {
	if dir := os.Getenv(binEnv); dir != "" {
		return dir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	dirs = slices.DeleteFunc(dirs, func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "initdb"))
		return err != nil
	})
	if len(dirs) == 0 {
		return "", errors.New("no PostgreSQL server binaries in /usr/lib/postgresql/<major>/bin: install the postgresql package " +
			"(make test does) or set " + binEnv)
	}
	slices.SortFunc(dirs, func(a, b string) int { return majorOf(a) - majorOf(b) })
	return dirs[len(dirs)-1], nil
}

// majorOf returns the major version in /usr/lib/postgresql/<major>/bin.
func majorOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start makes a cluster in a new temporary directory and starts it.
func Start() (*Cluster, error) {
	return start(func(ctx context.Context, bin string, cred *syscall.Credential, data string) error {
		initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "--pgdata="+data,
			"--username="+superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
		initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := initdb.CombinedOutput(); err != nil {
			return fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
		}
		return nil
	})
}

// StartStandby makes a streaming replica of c in a new temporary
// directory (pg_basebackup) and starts it: a hot standby that answers
// reads and follows c.
func (c *Cluster) StartStandby() (*Cluster, error) {
	return start(func(ctx context.Context, bin string, cred *syscall.Credential, data string) error {
		backup := exec.CommandContext(ctx, filepath.Join(bin, "pg_basebackup"), "--pgdata="+data, "--host="+c.dir,
			"--username="+superuser, "--write-recovery-conf", "--checkpoint=fast", "--no-sync")
		backup.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := backup.CombinedOutput(); err != nil {
			return fmt.Errorf("pgtest: pg_basebackup: %w\n%s", err, out)
		}
		return nil
	})
}

// start makes a cluster's data directory with mkdata in a new temporary
// directory and starts its server.
func start(mkdata func(ctx context.Context, bin string, cred *syscall.Credential, data string) error) (_ *Cluster, err error) {
	bin, err := bin()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	// Under the shared temporary directory, which the cluster's user can
	// reach; a test's own TempDir is private to the test's user.
	dir, err := os.MkdirTemp("", "chainhost-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("pgtest: give %s to %s: %w", dir, systemUser, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	data := filepath.Join(dir, "data")
	if err := mkdata(ctx, bin, cred, data); err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, out: &syncbuf.Buffer{}, done: make(chan struct{})}
	// Durability is not under test: fsync off makes the cluster fast on a
	// busy machine.
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir,
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
		"-c", "max_connections=200", "-c", "shared_buffers=128MB", "-c", "log_min_messages=warning")
	// The server dies with the test binary even when it is killed:
	// SIGQUIT is PostgreSQL's immediate shutdown.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	if err := c.waitReady(ctx); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// credential returns the account to run the cluster as: nil (the
// caller's) unless the caller is root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(systemUser)
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, PostgreSQL needs an unprivileged account: %w "+
			"(the postgresql package creates %s)", err, systemUser)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// waitReady waits until the server accepts connections.
func (c *Cluster) waitReady(ctx context.Context) error {
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-c.done:
			return fmt.Errorf("pgtest: postgres exited during start-up:\n%s", c.out.String())
		case <-ctx.Done():
			return fmt.Errorf("pgtest: postgres not ready within %s: %v\n%s", startTimeout, err, c.out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// New starts a cluster for a test or benchmark and stops it when the test
// ends; a failure to start fails the test (PostgreSQL is part of what
// `make test` installs, never skipped).
func New(t testing.TB) *Cluster {
	t.Helper()
	return cleanup(t)(Start())
}

// NewStandby starts a streaming replica of c for a test and stops it when
// the test ends.
func (c *Cluster) NewStandby(t testing.TB) *Cluster {
	t.Helper()
	return cleanup(t)(c.StartStandby())
}

// cleanup returns a function that fails t on a start's error, or has the
// cluster stopped when t ends.
func cleanup(t testing.TB) func(*Cluster, error) *Cluster {
	return func(c *Cluster, err error) *Cluster {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := c.Stop(); err != nil {
				t.Error(err)
			}
		})
		return c
	}
}

// URL returns the connection URL of database db as the superuser.
func (c *Cluster) URL(db string) string { return c.UserURL(db, superuser) }

// UserURL returns the connection URL of database db as role user.
func (c *Cluster) UserURL(db, user string) string {
	q := url.Values{"host": {c.dir}, "user": {user}}
	return "postgres:///" + url.PathEscape(db) + "?" + q.Encode()
}

// Exec runs SQL statements in database db as the superuser.
func (c *Cluster) Exec(ctx context.Context, db, sql string) error {
	conn, err := pgx.Connect(ctx, c.URL(db))
	if err != nil {
		return fmt.Errorf("pgtest: connect to %s: %w", db, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("pgtest: %s: %w", strings.TrimSpace(sql), err)
	}
	return nil
}

// CreateDatabase creates a database and returns its superuser URL.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	if err := c.Exec(ctx, "postgres", "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	return c.URL(name), nil
}

// NewDatabase creates a database with a name of its own for a test and
// returns the name.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test%d", c.dbs.Add(1))
	if _, err := c.CreateDatabase(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	return name
}

// PID returns the server's (the postmaster's) process ID; its sessions
// are its child processes.
func (c *Cluster) PID() int { return c.cmd.Process.Pid }

// Output is what the server logged.
func (c *Cluster) Output() string { return c.out.String() }

// Stop shuts the server down (fast shutdown: connections are closed) and
// removes the cluster.
func (c *Cluster) Stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		c.kill()
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("pgtest: remove %s: %w", c.dir, err)
	}
	return nil
}

// kill ends the server at once (PostgreSQL's immediate shutdown, then
// SIGKILL) and removes the cluster.
func (c *Cluster) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	_ = os.RemoveAll(c.dir)
}
