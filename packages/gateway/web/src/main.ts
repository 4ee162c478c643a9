/** Entry point of the web page (bundled by web/build.mjs). */
import { App } from "./app.js";

const root = document.getElementById("app");
if (root) new App(root).start();
