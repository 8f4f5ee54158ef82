package proxy

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// tickService is a go-ethereum RPC service with a call and a subscription.
type tickService struct{}

// Echo returns s.
func (tickService) Echo(s string) string { return s }

// Ticks notifies 1, 2, 3 ... every 5ms until the subscription ends.
func (tickService) Ticks(ctx context.Context) (*rpc.Subscription, error) {
	notifier, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := notifier.CreateSubscription()
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for i := 1; ; i++ {
			select {
			case <-t.C:
				if err := notifier.Notify(sub.ID, i); err != nil {
					return
				}
			case <-sub.Err():
				return
			}
		}
	}()
	return sub, nil
}

// TestGethWebSocket runs go-ethereum's WebSocket JSON-RPC server as the
// plugin's handler: calls and subscriptions (as eth_subscribe) pass.
func TestGethWebSocket(t *testing.T) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("test", tickService{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	e := newEnv(t, envOptions{handlers: map[string]http.Handler{"ws": srv.WebsocketHandler([]string{"*"})}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	client, err := rpc.DialContext(ctx, "ws"+strings.TrimPrefix(e.url("/ext/ws"), "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	var got string
	if err := client.CallContext(ctx, &got, "test_echo", "hello"); err != nil || got != "hello" {
		t.Fatalf("test_echo: %q, %v", got, err)
	}
	ticks := make(chan int, 16)
	sub, err := client.Subscribe(ctx, "test", ticks, "ticks")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for want := 1; want <= 3; want++ {
		select {
		case n := <-ticks:
			if n != want {
				t.Fatalf("tick %d, want %d", n, want)
			}
		case err := <-sub.Err():
			t.Fatalf("subscription ended: %v", err)
		case <-ctx.Done():
			t.Fatal("no tick")
		}
	}
}
