// The composition's public face: the configuration and the server process, for the command
// (cli/main.ts). Everything else in node/ wires the layers below together.

export { type Config, ConfigError, loadConfig } from './config.js';
export { serve } from './serve.js';
