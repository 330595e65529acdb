#!/usr/bin/env python3
"""Writes a small perf.data (no features, so no EVENT_DESC) whose thread
5000 is sampled before its first COMM and renamed twice, and whose thread
5001 never gets a name: perf names the first ":5000" and overrides that
name in place with the first COMM. Usage: late_comm.py OUT"""
import struct, sys
IP,TID,TIME,PERIOD=1,2,4,256
st=IP|TID|TIME|PERIOD
T0=1_000_000_000
def pad8(b): return b+b'\0'*((-len(b))%8)
def cstr(s): return pad8(s.encode()+b'\0')
def rec(typ,misc,body): return struct.pack('<IHH',typ,misc,8+len(body))+body
def tr(pid,tid,t): return struct.pack('<IIQ',pid,tid,t)
def sample(pid,tid,t,ip): return rec(9,2,struct.pack('<QIIQQ',ip,pid,tid,t,1000))
B=0x400000
r=[rec(1,2,struct.pack('<IIQQQ',5000,5000,B,0x1000,0)+cstr('/nonexistent/a')+tr(5000,5000,T0))]
t=T0+10
for i in range(3): r.append(sample(5000,5000,t,B+0x10)); t+=10
r.append(sample(5000,5001,t,B+0x20)); t+=10
r.append(rec(3,0,struct.pack('<II',5000,5000)+cstr('late')+tr(5000,5000,t))); t+=10
for i in range(2): r.append(sample(5000,5000,t,B+0x10)); t+=10
r.append(rec(3,0,struct.pack('<II',5000,5000)+cstr('later')+tr(5000,5000,t))); t+=10
r.append(sample(5000,5000,t,B+0x10)); t+=10
r.append(rec(68,0,b''))
data=b''.join(r)
flags=(1<<8)|(1<<9)|(1<<18)
attr=struct.pack('<IIQQQQQIIQQ',1,128,0,4000,st,0,flags,0,0,0,0).ljust(128,b'\0')
H=104; ao=H; fattr=attr+struct.pack('<QQ',0,0); do=ao+len(fattr)
hdr=b'PERFILE2'+struct.pack('<QQ',H,len(fattr))+struct.pack('<QQQQQQ',ao,len(fattr),do,len(data),0,0)+bytes(32)
open(sys.argv[1],'wb').write(hdr+fattr+data)
