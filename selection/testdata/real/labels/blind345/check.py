import json,os,re
# DUMPS: the folder of the session dumps (dump/main.go's OUT).
dumps=os.environ.get('DUMPS','/tmp/l3')
segs={}
for l in open(''+__import__('sys').argv[1]+''):
    x=json.loads(l); sid=x['session_id'][:8]
    if sid not in segs:
        turns={}; cur=0; mode=None
        for line in open(f'{dumps}/{sid}.full.txt'):
            m=re.match(r'######## TURN (\d+)',line)
            if m: cur=int(m.group(1)); mode='U'; turns.setdefault(cur,{'U':'','A':''}); continue
            if cur==0: continue
            if line.startswith('  ######## TYPED WHILE'): mode='U'; continue
            if line.startswith('  A['): mode='A'
            elif line.startswith('    [REFUSED'): mode='U'
            # An answer to the agent's question (the dump's AskUserQuestion
            # line, from set 8 on) is the person's text too.
            elif line.startswith('    [AskUserQuestion'): mode='U'
            elif line.startswith('    ['): mode=None; continue
            elif line.startswith('=== COMPACTION'): continue
            if mode: turns[cur][mode]+=line
        segs[sid]=turns
    t=segs[sid]; r='U' if x['role']=='user' else 'A'
    first=[k for k in sorted(t) if x['literal'] in t[k]['U'] or x['literal'] in t[k]['A']]
    ok = x['literal'] in t.get(x['turn'],{}).get(r,'')
    if not ok or (first and first[0]!=x['turn']):
        print(sid,x['class'],x['turn'],x['role'],repr(x['literal'][:50]),'ok' if ok else 'NOT AT TURN','first',first[:3])
