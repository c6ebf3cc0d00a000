"""The local stack as a library: one way to assemble it, for the command line
(`chunkwise local`), the end-to-end tests, the fault suite and the benchmarks.

- `config`: a stack's names and URLs (`StackConfig`), its environment and its state
  file (``.local/chunkwise-local.json``);
- `services`: the OpenSearch node and the S3/SQS emulator, started through their scripts;
- `resources`: the bucket, queues and notification, their removal, queue depths;
- `lifetime`: what `up` does with the state it finds (pure: the reconcile decision);
- `index_setup`: the index generation, the start-up reconcile, the cluster's query model;
- `stack`: `stack_up` (every step idempotent, each failure naming its step),
  `stack_reset`, `throwaway_stack`;
- `emulator`: the Lambda emulator (`LocalContext`, `Runner`, `run_workers`);
- `embed_endpoint`: the loopback embedding endpoint the local node's ML Commons calls.

Development only: not in the Lambda packages (mk/sam.mk SAM_NOT_SHIPPED).
"""
