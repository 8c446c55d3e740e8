import * as grpc from '@grpc/grpc-js';
import type { PulumiFn } from '@pulumi/pulumi/automation';

// The Node.js language host is not buildable here (its module is not served), so a test that runs the `pulumi` CLI
// itself, as a user's script does, serves the program from this process the way the Automation API does for an
// inline program: @pulumi/pulumi's own language server over gRPC on loopback, which the CLI reaches through its
// `--client <address> --exec-kind auto.inline` flags. The CLI, the engine and the providers are the real ones.

/* eslint-disable @typescript-eslint/no-require-imports -- the Automation API's language server is not a public export */
const { LanguageServer } = require('@pulumi/pulumi/automation/server') as {
  LanguageServer: new (program: PulumiFn) => grpc.UntypedServiceImplementation & { onPulumiExit(hasError: boolean): void };
};
const { LanguageRuntimeService } = require('@pulumi/pulumi/proto/language_grpc_pb') as { LanguageRuntimeService: grpc.ServiceDefinition };
const { grpcChannelOptions } = require('@pulumi/pulumi/runtime/settings') as { grpcChannelOptions: grpc.ChannelOptions };
/* eslint-enable @typescript-eslint/no-require-imports */

/** A program served for one CLI run: `flags` go on the pulumi command line; `close` after the command ended. */
export interface ServedProgram {
  flags: string[];
  close(failed: boolean): void;
}

export async function serveProgram(program: PulumiFn): Promise<ServedProgram> {
  const server = new grpc.Server(grpcChannelOptions);
  const language = new LanguageServer(program);
  server.addService(LanguageRuntimeService, language);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    flags: [`--client=127.0.0.1:${port}`, '--exec-kind', 'auto.inline'],
    close(failed) {
      language.onPulumiExit(failed);
      server.forceShutdown();
    },
  };
}
