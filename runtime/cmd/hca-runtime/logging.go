package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
)

// secretKey matches log attribute keys whose values are credentials; the
// logger writes [REDACTED] instead (a second line of defence: nothing logs
// credentials on purpose).
var secretKey = regexp.MustCompile(`(?i)(secret|password|token|accesskey|credential|kubeconfig|authorization)`)

// kindFields name, for the object controller-runtime adds to each
// reconcile's logger under its kind, the short field operators filter on.
var kindFields = map[string]string{
	"BurstPolicy":           "policy",
	"HybridCluster":         "cluster",
	"ServiceLevelObjective": "slo",
	"FederatedAutoscaler":   "autoscaler",
}

// newLogger returns the runtime's logger: JSON (one object a line) or text,
// at level, with credential-looking keys redacted and the reconciled object
// also as policy, cluster, slo or autoscaler ("namespace/name"), beside
// controller-runtime's controller and reconcileID.
func newLogger(format, level string, out io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{fmt.Sprintf("--log-level %q: use debug, info, warn or error", level)}
	}
	opts := &slog.HandlerOptions{Level: l, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if secretKey.MatchString(a.Key) {
			return slog.String(a.Key, "[REDACTED]")
		}
		return a
	}}
	switch format {
	case "json":
		return slog.New(fieldHandler{inner: slog.NewJSONHandler(out, opts)}), nil
	case "text":
		return slog.New(fieldHandler{inner: slog.NewTextHandler(out, opts)}), nil
	default:
		return nil, usageError{fmt.Sprintf("--log-format %q: use json or text", format)}
	}
}

// fieldHandler adds kindFields' short fields. It keeps the attributes a
// logger is given (WithAttrs) as they are and formats them only when a record
// is written: controller-runtime gives every reconcile a logger with its
// controller, object and reconcileID, and most reconciles log nothing, while
// slog's own handlers format those attributes at once (make bench-load: 25 MB
// of allocations a minute and a half, BenchmarkReconcileLogger).
type fieldHandler struct {
	inner slog.Handler
	attrs []slog.Attr // given to WithAttrs since inner's last group, not yet to inner
}

func (h fieldHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h fieldHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	attrs = withKindFields(attrs)
	if len(h.attrs) == 0 {
		return fieldHandler{inner: h.inner, attrs: attrs} // the handler owns attrs (slog.Handler)
	}
	return fieldHandler{inner: h.inner, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...)}
}

// WithGroup hands the pending attributes to inner first: they belong outside
// the group.
func (h fieldHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	inner := h.inner
	if len(h.attrs) > 0 {
		inner = inner.WithAttrs(h.attrs)
	}
	return fieldHandler{inner: inner.WithGroup(name)}
}

func (h fieldHandler) Handle(ctx context.Context, r slog.Record) error {
	var extra []slog.Attr
	r.Attrs(func(a slog.Attr) bool {
		extra = append(extra, kindField(a)...)
		return true
	})
	if len(extra) == 0 && len(h.attrs) == 0 {
		return h.inner.Handle(ctx, r)
	}
	// The logger's attributes first, then the record's, as slog writes them.
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	out.AddAttrs(h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	out.AddAttrs(extra...)
	return h.inner.Handle(ctx, out)
}

func withKindFields(attrs []slog.Attr) []slog.Attr {
	out := attrs
	for _, a := range attrs {
		if f := kindField(a); f != nil {
			out = append(out[:len(out):len(out)], f...)
		}
	}
	return out
}

// kindField is the short field for a kind-keyed object reference (klog's
// ObjectRef prints as namespace/name), or nil.
func kindField(a slog.Attr) []slog.Attr {
	field, ok := kindFields[a.Key]
	if !ok {
		return nil
	}
	if s, ok := a.Value.Any().(fmt.Stringer); ok {
		return []slog.Attr{slog.String(field, s.String())}
	}
	return nil
}
