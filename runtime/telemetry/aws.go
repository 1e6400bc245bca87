package telemetry

import (
	"context"
	"errors"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// AWSAPIOptions returns the AWS SDK middleware that counts the runtime's
// cloud API calls: append it to aws.Config.APIOptions, and every client built
// from that configuration (EKS, STS) is counted. A call (with its retries) is
// counted once in hca_cloud_api_calls_total and, when it finally fails, once
// in hca_cloud_api_errors_total with the API's error code; every attempt
// refused by throttling (the SDK's throttle codes) is counted in
// hca_cloud_api_throttles_total, retried or not. Nil m: no middleware.
func (m *Metrics) AWSAPIOptions() []func(*middleware.Stack) error {
	if m == nil {
		return nil
	}
	return []func(*middleware.Stack) error{func(s *middleware.Stack) error {
		calls := middleware.InitializeMiddlewareFunc("hcaTelemetryCalls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			service, op := awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)
			m.CloudCalls.WithLabelValues(service, op).Inc()
			out, md, err := next.HandleInitialize(ctx, in)
			if err != nil {
				m.CloudErrors.WithLabelValues(service, op, ErrorCode(err)).Inc()
			}
			return out, md, err
		})
		attempts := middleware.FinalizeMiddlewareFunc("hcaTelemetryThrottles", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleFinalize(ctx, in)
			if err != nil {
				if _, ok := retry.DefaultThrottleErrorCodes[ErrorCode(err)]; ok {
					m.CloudThrottles.WithLabelValues(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)).Inc()
				}
			}
			return out, md, err
		})
		if err := s.Initialize.Add(calls, middleware.After); err != nil {
			return err
		}
		// After the retry middleware: inside the retry loop, once per attempt.
		return s.Finalize.Add(attempts, middleware.After)
	}}
}

// ErrorCode is the API error code of err ("ThrottlingException"), or
// "canceled", "timeout" or "other" when the call failed before an answer.
func ErrorCode(err error) string {
	var api smithy.APIError
	switch {
	case errors.As(err, &api) && api.ErrorCode() != "":
		return api.ErrorCode()
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	default:
		return "other"
	}
}

// RecordCloudCall counts one cloud API call made outside the AWS SDK (the
// Alibaba Cloud CS client of runtime/member), as AWSAPIOptions counts the
// AWS ones: once in hca_cloud_api_calls_total; code != "": once in
// hca_cloud_api_errors_total; throttled attempts in
// hca_cloud_api_throttles_total. Nil m: nothing.
func (m *Metrics) RecordCloudCall(service, operation string, throttled int, code string) {
	if m == nil {
		return
	}
	m.CloudCalls.WithLabelValues(service, operation).Inc()
	if code != "" {
		m.CloudErrors.WithLabelValues(service, operation, code).Inc()
	}
	if throttled > 0 {
		m.CloudThrottles.WithLabelValues(service, operation).Add(float64(throttled))
	}
}
