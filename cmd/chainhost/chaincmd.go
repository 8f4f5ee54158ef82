package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/xvm/client"
)

// chainCmd is what `chainhost x|p|c` share: the flags every one of them
// takes (node, chain, key, timeout), the command word, and how a failure
// is reported.
type chainCmd struct {
	name    string // "x", "p" or "c"
	fs      *pflag.FlagSet
	stderr  io.Writer
	node    *string
	chain   *string
	keyText *string
	keyFile *string
	timeout *time.Duration
	cmd     string // the command word, once parsed
}

// newChainCmd returns the flags of `chainhost <name>`, whose chain
// defaults to the alias of the same letter; usage heads the flags' list.
func newChainCmd(name, usage string, stderr io.Writer) *chainCmd {
	fs := pflag.NewFlagSet("chainhost "+name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	alias := strings.ToUpper(name)
	c := &chainCmd{
		name:    name,
		fs:      fs,
		stderr:  stderr,
		node:    fs.String("node", "http://127.0.0.1:9650", "URL of the node"),
		chain:   fs.String("chain", alias, "the "+alias+"-Chain: its alias or ID"),
		keyText: fs.String("key", "", "private key: hex or PrivateKey-<cb58>"),
		keyFile: fs.String("key-file", "", "file holding the private key"),
		timeout: fs.Duration("timeout", 2*time.Minute, "give up after this long"),
	}
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fmt.Fprint(stderr, fs.FlagUsages())
	}
	return c
}

// parse reads the command word and the flags after it. It returns false
// with the exit code when there is nothing to run: help, or bad flags.
func (c *chainCmd) parse(args []string) (int, bool) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.fs.Usage()
		if len(args) == 0 {
			return 2, false
		}
		return 0, false
	}
	c.cmd = args[0]
	if err := c.fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if c.fs.NArg() > 0 {
		fmt.Fprintf(c.stderr, "chainhost %s %s: unexpected argument %q\n", c.name, c.cmd, c.fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// crossChainFlags adds the flags of moving funds to and from another
// chain (x and c): export's destination, import's source, and the chain
// whose exports balance shows.
func (c *chainCmd) crossChainFlags() (toChain, fromChain, from *string) {
	return c.fs.String("to-chain", "", "export: the chain to export to (alias or ID)"),
		c.fs.String("from-chain", "", "import: the chain that exported the funds (alias or ID)"),
		c.fs.String("from", "", "balance: also show what this chain exported to the key")
}

// runKeyed parses args, reads the key and runs the command with it,
// bounded by --timeout.
func (c *chainCmd) runKeyed(args []string, run func(ctx context.Context, key *avax.PrivateKey) int) int {
	if code, ok := c.parse(args); !ok {
		return code
	}
	key, err := c.key()
	if err != nil {
		return c.fail(err)
	}
	ctx, cancel := c.context()
	defer cancel()
	return run(ctx, key)
}

// xWallet returns the key's wallet on the X-Chain chain of the node.
func (c *chainCmd) xWallet(ctx context.Context, chain string, key *avax.PrivateKey) (*client.Wallet, error) {
	w, err := client.NewWallet(ctx, client.New(*c.node, chain, nil), key)
	if err != nil {
		return nil, fmt.Errorf("reach chain %s at %s: %w", chain, *c.node, err)
	}
	return w, nil
}

// fail reports err as the command's and returns the exit code 1.
func (c *chainCmd) fail(err error) int {
	fmt.Fprintf(c.stderr, "chainhost %s %s: %v\n", c.name, c.cmd, err)
	return 1
}

// key reads the private key from --key or --key-file.
func (c *chainCmd) key() (*avax.PrivateKey, error) {
	text := *c.keyText
	switch {
	case text != "" && *c.keyFile != "":
		return nil, errors.New("give --key or --key-file, not both")
	case *c.keyFile != "":
		b, err := os.ReadFile(*c.keyFile)
		if err != nil {
			return nil, err
		}
		text = string(b)
	case text == "":
		return nil, errors.New("--key or --key-file is required")
	}
	return avax.ParsePrivateKey(text)
}

// context bounds the command by --timeout.
func (c *chainCmd) context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), *c.timeout)
}
