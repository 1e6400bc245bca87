// Package chart holds the small pieces the project's SVG charts share (the
// simulator's and the demo's): axis rounding, number labels and escaping.
package chart
