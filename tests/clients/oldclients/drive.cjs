// Drive the npm ``mem0ai`` MemoryClient (an older release with the v1/v2 routes) through the memory
// calls and print what it saw as one JSON line. Usage: node drive.cjs NODE_MODULES HOST KEY USER
// (tests/test_old_clients.py installs the release and asserts on the report).
const path = require("path");
const [modules, host, key, user] = process.argv.slice(2);
const pkg = require(path.join(modules, "mem0ai", "package.json"));
const MemoryClient = require(path.join(modules, "mem0ai")).default;

const results = (answer) => (Array.isArray(answer) ? answer : answer.results);

(async () => {
  const client = new MemoryClient({ apiKey: key, host });
  const report = { version: pkg.version };
  const text = "I live in Utrecht and my sister is called Noor.";
  report.add = await client.add([{ role: "user", content: text }], { user_id: user, infer: false });
  // What @mastra/mem0 does with the answer (it failed with "memory.map is not a function").
  report.add_mapped = report.add.map((memory) => memory.memory);
  const memoryId = results(report.add)[0].id;
  await client.add([{ role: "user", content: "My bike is green." }], { user_id: user, infer: false });
  report.get_all_v1 = results(await client.getAll({ user_id: user }));
  report.get_all = results(await client.getAll({ api_version: "v2", filters: { AND: [{ user_id: user }] } }));
  report.search_v1 = results(await client.search("Where does she live?", { user_id: user }));
  report.search = results(await client.search("Utrecht", { api_version: "v2", filters: { AND: [{ user_id: user }] } }));
  report.get = await client.get(memoryId);
  report.update = await client.update(memoryId, { text: "I live in Amsterdam and my sister is called Noor." });
  report.get_after_update = await client.get(memoryId);
  report.history = await client.history(memoryId);
  report.delete = await client.delete(memoryId);
  try {
    await client.get(memoryId);
    report.get_after_delete = "found";
  } catch (err) {
    report.get_after_delete = err.name || "Error";
  }
  report.get_all_after_delete = results(await client.getAll({ api_version: "v2", filters: { user_id: user } }));
  console.log(JSON.stringify(report));
})().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
