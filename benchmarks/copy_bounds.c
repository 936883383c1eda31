// An independent bound on large copies, outside kex: glibc memcpy, rep movsb, an AVX-512
// non-temporal copy (with and without prefetchnta 2 KiB ahead), a read-only stream and
// non-temporal and temporal write-only streams over one buffer size, interleaved within
// each round (the order rotates), the median and p10/p90 GB/s (1e9 B/s) over rounds.
// It answers "can any copy loop reach 1.5x memcpy here?" with no kex code involved.
// Build: gcc -O2 -o copy_bounds benchmarks/copy_bounds.c
// Usage: copy_bounds MiB [CPU] [ROUNDS]   (e.g. copy_bounds 64 1 11)
#define _GNU_SOURCE
#include <immintrin.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void repmovsb(void*d,const void*s,size_t n){asm volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
__attribute__((target("avx512f"))) static void ntcopy(void*d,const void*s,size_t n){
  char*D=d;const char*S=s;for(size_t i=0;i<n;i+=256){__m512i a=_mm512_load_si512(S+i),b=_mm512_load_si512(S+i+64),c=_mm512_load_si512(S+i+128),e=_mm512_load_si512(S+i+192);
  _mm512_stream_si512((void*)(D+i),a);_mm512_stream_si512((void*)(D+i+64),b);_mm512_stream_si512((void*)(D+i+128),c);_mm512_stream_si512((void*)(D+i+192),e);}_mm_sfence();}
__attribute__((target("avx512f"))) static void ntcopy_pf(void*d,const void*s,size_t n){
  char*D=d;const char*S=s;for(size_t i=0;i<n;i+=256){_mm_prefetch(S+i+2048,_MM_HINT_NTA);_mm_prefetch(S+i+2048+64,_MM_HINT_NTA);_mm_prefetch(S+i+2048+128,_MM_HINT_NTA);_mm_prefetch(S+i+2048+192,_MM_HINT_NTA);__m512i a=_mm512_load_si512(S+i),b=_mm512_load_si512(S+i+64),c=_mm512_load_si512(S+i+128),e=_mm512_load_si512(S+i+192);
  _mm512_stream_si512((void*)(D+i),a);_mm512_stream_si512((void*)(D+i+64),b);_mm512_stream_si512((void*)(D+i+128),c);_mm512_stream_si512((void*)(D+i+192),e);}_mm_sfence();}
static volatile uint64_t sink;
__attribute__((target("avx512f"))) static void readonly(void*d,const void*s,size_t n){(void)d;const char*S=s;__m512i x=_mm512_setzero_si512();for(size_t i=0;i<n;i+=256){x=_mm512_xor_si512(x,_mm512_load_si512(S+i));x=_mm512_xor_si512(x,_mm512_load_si512(S+i+64));x=_mm512_xor_si512(x,_mm512_load_si512(S+i+128));x=_mm512_xor_si512(x,_mm512_load_si512(S+i+192));}sink=_mm512_reduce_add_epi64(x);}
__attribute__((target("avx512f"))) static void ntwrite(void*d,const void*s,size_t n){(void)s;char*D=d;__m512i z=_mm512_set1_epi8(1);for(size_t i=0;i<n;i+=256){_mm512_stream_si512((void*)(D+i),z);_mm512_stream_si512((void*)(D+i+64),z);_mm512_stream_si512((void*)(D+i+128),z);_mm512_stream_si512((void*)(D+i+192),z);}_mm_sfence();}
__attribute__((target("avx512f"))) static void twrite(void*d,const void*s,size_t n){(void)s;char*D=d;__m512i z=_mm512_set1_epi8(1);for(size_t i=0;i<n;i+=256){_mm512_store_si512((void*)(D+i),z);_mm512_store_si512((void*)(D+i+64),z);_mm512_store_si512((void*)(D+i+128),z);_mm512_store_si512((void*)(D+i+192),z);}}
static void mc(void*d,const void*s,size_t n){memcpy(d,s,n);}
typedef void(*fn)(void*,const void*,size_t);
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  cpu_set_t c;CPU_ZERO(&c);CPU_SET(argc>2?atoi(argv[2]):1,&c);sched_setaffinity(0,sizeof c,&c);
  size_t n=(size_t)atoll(argv[1])<<20;int rounds=argc>3?atoi(argv[3]):15;
  char*s=aligned_alloc(4096,n),*d=aligned_alloc(4096,n);memset(s,1,n);memset(d,2,n);
  const char*names[]={"memcpy","rep_movsb","nt_copy","nt_copy_pfnta","read_only","nt_write","t_write"};fn f[]={mc,repmovsb,ntcopy,ntcopy_pf,readonly,ntwrite,twrite};
  int K=7;double *g=calloc(K*rounds,sizeof(double));
  for(int r=0;r<rounds;r++)for(int k0=0;k0<K;k0++){int k=(k0+r)%K;f[k](d,s,n);double t0=now();int it=n>=(64<<20)?1:4;for(int i=0;i<it;i++)f[k](d,s,n);g[k*rounds+r]=n*(double)it/(now()-t0)/1e9;}
  for(int k=0;k<K;k++){qsort(g+k*rounds,rounds,sizeof(double),cmp);printf("%zu MiB %-14s %6.1f GB/s (p10 %.1f p90 %.1f)\n",n>>20,names[k],g[k*rounds+rounds/2],g[k*rounds+rounds/10],g[k*rounds+rounds*9/10]);}
}
