// Package chart holds the small pieces the project's SVG charts share (the
// simulator's and the demo's): axis rounding, number labels, escaping, and
// WriteLines, a plain multi-panel line chart (the demo's dashboard panels).
package chart
