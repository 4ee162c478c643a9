#!/usr/bin/env node
// Tracked launcher for the `tiller` bin (npm links bins at install time, before anything is built). It runs
// the single-file bundle when the build made one (far fewer modules to load at start-up), else dist/.
import { existsSync } from "node:fs";

const bundled = new URL("../bundle/cli.js", import.meta.url);
await import(existsSync(bundled) ? bundled.href : "../dist/cli.js");
