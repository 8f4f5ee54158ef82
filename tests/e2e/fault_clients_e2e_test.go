package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/core/nodetest"
)

// slowClientArgs are short listener timeouts, so that the fault tests see
// them act: headers 1s, the whole request 2s, the answer 3s, keep-alive 2s.
var slowClientArgs = []string{
	"--http-read-header-timeout=1s", "--http-read-timeout=2s", "--http-write-timeout=3s",
	"--http-idle-timeout=2s", "--plugin-request-timeout=2500ms",
}

// dial opens a raw TCP connection to the node.
func dial(t *testing.T, n *nodetest.Node) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(n.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedBy reports, on the channel it returns, what the server sent
// before it closed c.
func closedBy(c net.Conn) <-chan string {
	done := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(c)
		done <- string(b)
	}()
	return done
}

// trickle writes pieces to c one every interval until the server closes
// c, and returns what it answered; it fails if the server keeps c open
// through every piece.
func trickle(t *testing.T, n *nodetest.Node, c net.Conn, pieces []string) string {
	t.Helper()
	closed := closedBy(c)
	for _, p := range pieces {
		select {
		case answer := <-closed:
			return answer
		case <-time.After(200 * time.Millisecond):
		}
		_, _ = c.Write([]byte(p))
		echoOK(t, n) // the others are served meanwhile
	}
	t.Fatalf("the server kept a connection open through %d trickled pieces", len(pieces))
	return ""
}

// TestSlowClients: a client that trickles its headers, or its body, is cut
// off by the listener's timeouts while the others are served; a client
// that reads a big answer slowly holds up no one, not even requests to the
// same handler, and is cut off by the write timeout.
func TestSlowClients(t *testing.T) {
	t.Parallel()
	n := startFaultNode(t, slowClientArgs...)
	echoOK(t, n)
	base := hostGoroutines(t, n)

	t.Run("header trickle", func(t *testing.T) {
		c := dial(t, n)
		_, _ = c.Write([]byte("POST /ext/bc/F/rpc HTTP/1.1\r\nHost: x\r\n"))
		pieces := make([]string, 100)
		for i := range pieces {
			pieces[i] = fmt.Sprintf("X-Slow-%d: y\r\n", i)
		}
		if answer := trickle(t, n, c, pieces); answer != "" {
			t.Errorf("answer to trickled headers: %q, want the connection closed", answer)
		}
	})

	t.Run("body trickle", func(t *testing.T) {
		c := dial(t, n)
		body := `{"jsonrpc":"2.0","id":1,"method":"fault.echo","params":{"text":"` + strings.Repeat("z", 60) + `"}}`
		_, _ = fmt.Fprintf(c, "POST /ext/bc/F/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		answer := trickle(t, n, c, strings.Split(body, ""))
		t.Logf("answer to a trickled body: %q", answer)
		// The handler's read fails at the read timeout: the answer is a
		// JSON-RPC error, never the echo, and the connection is closed.
		if !strings.HasPrefix(answer, "HTTP/1.1 400 Bad Request\r\n") || !strings.Contains(answer, `"message":"read request body: `) {
			t.Errorf("answer to a trickled body: %q, want a 400 read error", answer)
		}
	})

	t.Run("slow reader", func(t *testing.T) {
		const size = 48 << 20 // far more than the sockets buffer
		c := dial(t, n)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"fault.big","params":{"bytes":%d}}`, size)
		_, _ = fmt.Fprintf(c, "POST /ext/bc/F/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		// Not reading: the answer fills the socket buffers, then its
		// window in the plugin. The same handler serves the others.
		for range 20 {
			echoOK(t, n)
		}
		// Reading at 64 KiB per 10ms, the answer would take 7.5s: the
		// write timeout (3s) cuts it.
		var got int64
		buf := make([]byte, 64<<10)
		for {
			k, err := c.Read(buf)
			got += int64(k)
			if err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("the slow reader got %d of %d bytes", got, size)
		if got >= size {
			t.Errorf("the slow reader got %d bytes, the whole answer; want it cut", got)
		}
		waitMetricAtMost(t, n, "go_goroutines", float64(base+5))
		echoOK(t, n)
	})
}

// TestAbandonedConnections: many connections opened and left (idle, with
// half a request, or after an answer), or closed without a word (WebSocket
// connections among them), leave the host's goroutines and descriptors
// where they were once its timeouts have run.
func TestAbandonedConnections(t *testing.T) {
	t.Parallel()
	// Timeouts long enough for every connection to be open at once, short
	// enough to act soon after.
	n := startFaultNode(t, "--http-read-header-timeout=5s", "--http-read-timeout=6s", "--http-write-timeout=8s",
		"--http-idle-timeout=5s", "--plugin-request-timeout=7s")
	echoOK(t, n)
	goroutines, fds := hostMetric(t, n, "go_goroutines"), hostMetric(t, n, "process_open_fds")

	const each = 40
	var conns []net.Conn
	for i := range 4 * each {
		c := dial(t, n)
		conns = append(conns, c)
		switch i % 4 {
		case 0: // connected, silent
		case 1: // half the headers
			_, _ = c.Write([]byte("POST /ext/bc/F/rpc HTTP/1.1\r\nHost: x\r\n"))
		case 2: // a whole request, its answer read, then kept alive
			body := `{"jsonrpc":"2.0","id":1,"method":"fault.echo","params":{"text":"hi"}}`
			_, _ = fmt.Fprintf(c, "POST /ext/bc/F/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("keep-alive request: %v, %v", resp, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
		case 3: // a request whose answer is never read
			body := `{"jsonrpc":"2.0","id":1,"method":"fault.big","params":{"bytes":1048576}}`
			_, _ = fmt.Fprintf(c, "POST /ext/bc/F/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		}
	}
	// WebSocket connections, used, then dropped without a close frame.
	var wg sync.WaitGroup
	for range each {
		wg.Go(func() {
			ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.URL, "http")+"/ext/bc/F/ws", nil)
			if err != nil {
				t.Errorf("dial ws: %v", err)
				return
			}
			if err := ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "fault.echo", "params": map[string]string{"text": "ws"}}); err != nil {
				t.Errorf("ws write: %v", err)
			}
			var got struct {
				Result string `json:"result"`
			}
			if err := ws.ReadJSON(&got); err != nil || got.Result != "ws" {
				t.Errorf("ws echo: %+v, %v", got, err)
			}
			ws.NetConn().Close()
		})
	}
	wg.Wait()
	echoOK(t, n)
	g := hostMetric(t, n, "process_open_fds")
	t.Logf("host descriptors: %g before, %g with the connections open", fds, g)
	if g < fds+3*each {
		t.Fatalf("%g descriptors with %d connections open, %g before: the test holds too few", g, 4*each, fds)
	}

	// The host closes what it holds; the client's ends stay open.
	waitMetricAtMost(t, n, "go_goroutines", goroutines+5)
	waitMetricAtMost(t, n, "process_open_fds", fds)
	for _, c := range conns {
		c.Close()
	}
	echoOK(t, n)
}
