#!/usr/bin/env node
// Tracked launcher for the `tiller` bin: npm links bins at install time, before `dist/` is built.
import "../dist/cli.js";
