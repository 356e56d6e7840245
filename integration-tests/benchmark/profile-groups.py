#!/usr/bin/env python3
"""CPU per request by where it went, limited against unlimited, from two profiles of the HTTP suite.

    profile-groups.py LIMITED.collapsed REQUESTS UNLIMITED.collapsed REQUESTS

The profiles are those -Dbench.http.profile writes (async-profiler collapsed stacks, CPU sampled every
200 us, thread names first); REQUESTS is what the log says the profiled run completed ("Profile of
/limited (1 client), not counted: N requests"). Each sample goes to the first group below whose
pattern its stack matches, and counts as 200 us divided by the requests of its run.
"""
import sys, collections, re
# ordered: first matching rule (searching the whole stack string) wins
RULES=[
 ('gc/jit/vm', r'^\[(C\d|VM |G1|GC|Service|Monitor|Reference|Signal|Common-Cleaner|Sweeper)'),
 ('other threads', r'^\[(?!vert\.x-eventloop)'),
 ('HTTP response flush (write syscall)', r'(Http1xServerResponse|endReadAndFlush|channelReadComplete).*flush0'),
 ('redis send task (ours + client + write syscall)', r'ScriptChannel\$\$Lambda|ScriptChannel\.lambda\$submit|ScriptChannel\.flush|RedisStandaloneConnection.*lambda\$send|RedisStandaloneConnection\.doSend'),
 ('redis reply: resume of requests', r'(RESPParser|NetSocketImpl).*(resume|AbstractResteasyReactiveContext)'),
 ('redis reply: ours (BatchRun, decision)', r'(RESPParser|NetSocketImpl).*(PendingCall|BatchRun|RemoteDecisions)'),
 ('redis reply: read+parse', r'RESPParser|NetSocketImpl|RedisStandaloneConnection'),
 ('response filter headers (ours)', r'RateLimitFilter\.headers'),
 ('request filter decide (ours)', r'RateLimitFilter\.decide|RateLimitFilter\$GeneratedServerRequestFilter'),
 ('method + response handlers + serialization', r'ResponseWriterHandler|Http1xServerResponse\.end|ResourceResponseFilterHandler|InvocationHandler'),
 ('resumed task (dispatch, CDI context)', r'VertxResteasyReactiveRequestContext\$1\$1\.handle'),
 ('http read/decode/route/REST handlers', r'Http1xServerConnection|HttpObjectDecoder|ByteToMessageDecoder|RouterImpl'),
 ('select/wakeup', r'NioEventLoop\.select|SelectedSelectionKeySetSelector|epoll'),
 ('other tasks', r'runAllTasks'),
 ('other read', r'processSelectedKey'),
 ('other', r''),
]
def run(f,reqs):
    c=collections.Counter()
    for line in open(f):
        st,_,n=line.rstrip().rpartition(' '); n=int(n)
        for name,rx in RULES:
            if re.search(rx,st): c[name]+=n; break
    return {k:v*200.0/reqs for k,v in c.items()}
a=run(sys.argv[1],int(sys.argv[2])); b=run(sys.argv[3],int(sys.argv[4]))
print('%-62s %8s %8s %8s'%('phase','limited','unlim','diff'))
for name,_ in RULES:
    x=a.get(name,0); y=b.get(name,0)
    if x>0.01 or y>0.01: print('%-62s %8.2f %8.2f %8.2f'%(name,x,y,x-y))
print('%-62s %8.2f %8.2f %8.2f'%('TOTAL',sum(a.values()),sum(b.values()),sum(a.values())-sum(b.values())))
