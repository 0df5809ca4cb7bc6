// Package browsertest is test support only: it renders a local HTML file in headless
// Chromium (Debian's chromium package, scripts/deps.sh) and returns the DOM after the page's
// scripts ran, or a screenshot. Tests skip when no Chromium is installed (and fail under CI,
// where scripts/deps.sh installed it).
package browsertest
