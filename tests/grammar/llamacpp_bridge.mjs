// llama.cpp's own GBNF parser and matcher, through node-llama-cpp's prebuilt CPU binary
// (no model: a grammar is parsed and matched over code points, as llama.cpp's sampler does
// before tokens). One JSON request a line on stdin, one JSON answer a line on stdout:
//   {"grammar": "...", "texts": ["...", ...]}  ->  {"parsed": bool, "accepted": [bool, ...]}
// "parsed" is false where llama.cpp's parser refuses the grammar (its message goes to stderr);
// "accepted" says, per text, whether the whole text is a sentence of the grammar.
// argv[2]: the folder whose node_modules holds node-llama-cpp (requirements/llamacpp).
import path from "node:path";
import readline from "node:readline";
import {pathToFileURL} from "node:url";

const entry = path.join(process.argv[2], "node_modules", "node-llama-cpp", "dist", "index.js");
const {getLlama, LlamaGrammar} = await import(pathToFileURL(entry).href);
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});

function answer({grammar, texts}) {
    let parsed;
    try {
        parsed = new LlamaGrammar(llama, {grammar});
    } catch {
        return {parsed: false, accepted: []};
    }
    // _testText is node-llama-cpp's own test hook (pinned version): llama_grammar_accept
    // per code point, true when a stack is empty at the end.
    return {parsed: true, accepted: texts.map((text) => parsed._testText(text))};
}

for await (const line of readline.createInterface({input: process.stdin})) {
    process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + "\n");
}
