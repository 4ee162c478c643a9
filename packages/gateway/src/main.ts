// `npm start`: Tiller's main job. Until the gateway server lands this prints what the packages provide.
const layers = ["@tiller/ai", "@tiller/agent", "@tiller/coding-agent", "@tiller/gateway"];
console.log("Tiller — an agent you can steer while it runs.");
for (const name of layers) {
  const mod = await import(name).catch(() => ({}));
  console.log(`  ${name}: ${Object.keys(mod).length} exports`);
}
