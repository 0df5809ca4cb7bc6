// Package browsertest is test support only: it renders a local HTML file in headless
// Chromium (Debian's chromium package, scripts/deps.sh) and returns the DOM after the page's
// scripts ran, or a screenshot; Load does the same for any URL (a local server's page) and
// also returns what the page wrote to the console (Chromium's --enable-logging=stderr), so
// a test can fail on a script error. Tests skip when no Chromium is installed (and fail under CI,
// where scripts/deps.sh installed it).
package browsertest
