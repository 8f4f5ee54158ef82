package grpcerr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var (
	errMissing = errors.New("missing")
	errTaken   = errors.New("taken")
	sentinels  = Sentinels{codes.NotFound: errMissing, codes.AlreadyExists: errTaken}
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode codes.Code
		wantIs   error
	}{
		{name: "plain", err: errors.New("boom"), wantCode: codes.Unknown},
		{name: "not found", err: fmt.Errorf("key k: %w", errMissing), wantCode: codes.NotFound, wantIs: errMissing},
		{name: "second sentinel", err: fmt.Errorf("id x: %w", errTaken), wantCode: codes.AlreadyExists, wantIs: errTaken},
		{name: "canceled", err: fmt.Errorf("read: %w", context.Canceled), wantCode: codes.Canceled, wantIs: context.Canceled},
		{name: "deadline", err: context.DeadlineExceeded, wantCode: codes.DeadlineExceeded, wantIs: context.DeadlineExceeded},
		{name: "status kept", err: status.Error(codes.InvalidArgument, "bad kind"), wantCode: codes.InvalidArgument},
		{name: "received error kept", err: FromStatus(status.Error(codes.PermissionDenied, "no"), sentinels), wantCode: codes.PermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := ToStatus(tt.err, sentinels)
			if status.Code(sent) != tt.wantCode {
				t.Errorf("ToStatus code = %v, want %v", status.Code(sent), tt.wantCode)
			}
			got := FromStatus(sent, sentinels)
			if got.Error() != tt.err.Error() {
				t.Errorf("message = %q, want %q", got.Error(), tt.err.Error())
			}
			if tt.wantIs != nil && !errors.Is(got, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", got, tt.wantIs)
			}
			for _, other := range []error{errMissing, errTaken, context.Canceled} {
				if other != tt.wantIs && errors.Is(got, other) {
					t.Errorf("%v matches %v, a sentinel it should not", got, other)
				}
			}
		})
	}
	if ToStatus(nil, sentinels) != nil || FromStatus(nil, sentinels) != nil {
		t.Error("nil error did not stay nil")
	}
}
