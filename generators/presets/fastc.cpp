// fast.c v1.6 (Arjan van de Ven) kernels, Mark Hahn's athlon.c variants of them, and
// Manfred Spraul's / Karl Vogel's no_prefetch (docs/seed-kernels.md §3). The Hahn variants
// are the same generators with another prefetch distance/position and epilogue.
#include "generators/presets/impl.hpp"

namespace kex::presets_detail {

const char* const kOriginFastc =
    "Arjan van de Ven, fast.c v1.6 (\"Athlon test program\", 2000/09/23); full source as attached by "
    "Manfred Spraul to LKML <3DB82ABF.8030706@colorfullife.com> (24 Oct 2002)";
const char* const kOriginHahn =
    "Mark Hahn, hacked athlon.c (LKML <Pine.LNX.4.10.10105050155020.15185-100000@coffee.psychology.mcmaster.ca>, "
    "5 May 2001); source as redistributed by Dieter Nuetzel <200210242251.26776.Dieter.Nuetzel@hamburg.de>";

namespace {

using namespace Xbyak;
using namespace Xbyak::util;


// ---- rep-string page kernels (§3.1, §3.2, §3.5, §3.6) -------------------------------

/// EAX = 0, ECX = 1024, `[cld]` `rep stosd` over the page at rdi.
void rep_stosd_clear(Gen& g, bool cld) {
  g.xor_(eax, eax);
  g.mov(ecx, kPage / 4);
  if (cld) g.cld();
  g.rep();
  g.stosd();
}

/// ECX = 1024, `[cld]` `rep movsd` from rsi to rdi.
void rep_movsd_copy(Gen& g, bool cld) {
  g.mov(ecx, kPage / 4);
  if (cld) g.cld();
  g.rep();
  g.movsd();
}

// ---- MMX clears (§3.3, §3.4) -----------------------------------------------------------

/// fast_clear_page: 32 × 16 `movq` stores of mm0 (128 B per iteration); Hahn adds sfence.
void mmx_clear_movq(Gen& g, const PresetOptions& o, Subs& s, bool hahn_sfence) {
  fpu_save(g, o, s);
  g.pxor(mm0, mm0);
  g.mov(ecx, kPage / 128);
  Label loop;
  g.L(loop);
  for (int k = 0; k < 16; ++k) g.movq(g.qword[rdi + 8 * k], mm0);
  g.add(rdi, 128);
  g.dec(ecx);
  g.jnz(loop);
  if (hahn_sfence) g.sfence();
  femms(g, s);
  fpu_restore(g, o);
}

/// faster_clear_page / even_faster_clear: 64 × 8 `movntq`, sfence, femms.
void mmx_clear_movntq(Gen& g, const PresetOptions& o, Subs& s) {
  fpu_save(g, o, s);
  movntq_clear_page(g);
  femms(g, s);
  fpu_restore(g, o);
}

// ---- MMX copies (§3.7–§3.13), one parametric generator --------------------------------

enum class Pf { none, amd3dnow, nta };
enum class PfAt { top, after_loads };
enum class Body {
  quads4,       ///< 2 × (4 movq loads into mm0-3, 4 stores)
  loads8,       ///< 8 movq loads into mm0-7, then 8 stores
  interleaved8  ///< 8 × (movq mmk load, store mmk)
};
enum class Step { femms, emms, sfence, frstor, fsave_again };
enum class PreRead { none, descending, ascending_groups };

struct MmxCopy {
  Pf pf = Pf::none;
  std::vector<int> prologue;       ///< prefetch offsets issued once per page
  bool prologue_before_save = false;
  int distance = 0;                ///< in-loop prefetch offset
  PfAt at = PfAt::top;
  Body body = Body::quads4;
  bool nt = false;
  std::vector<Step> epilogue;
  PreRead pre_read = PreRead::none;
};

void prefetch(Gen& g, Pf pf, int off, Subs& s) {
  if (pf == Pf::amd3dnow) prefetch_3dnow(g, rsi, off, s);
  else if (pf == Pf::nta) g.prefetchnta(g.ptr[rsi + off]);
}

/// Manfred's block pre-read: 16 groups of 4 dword loads at +192,+128,+64,+0 of a
/// 256-byte group, groups from the page end down (descending) or from the start up.
void block_pre_read(Gen& g, PreRead order) {
  g.mov(ecx, kPage / 256);
  if (order == PreRead::descending) g.lea(r8, g.ptr[rsi + (kPage - 256)]);
  else g.mov(r8, rsi);
  Label loop;
  g.L(loop);
  for (int off : {192, 128, 64, 0}) g.mov(eax, g.dword[r8 + off]);
  if (order == PreRead::descending) g.sub(r8, 256);
  else g.add(r8, 256);
  g.dec(ecx);
  g.jnz(loop);
}

void mmx_copy(Gen& g, const PresetOptions& o, Subs& s, const MmxCopy& k) {
  auto store = [&](int off, int reg) {
    if (k.nt) g.movntq(g.qword[rdi + off], Mmx(reg));
    else g.movq(g.qword[rdi + off], Mmx(reg));
  };
  if (k.pre_read != PreRead::none) block_pre_read(g, k.pre_read);
  if (k.prologue_before_save)
    for (int off : k.prologue) prefetch(g, k.pf, off, s);
  fpu_save(g, o, s);
  if (!k.prologue_before_save)
    for (int off : k.prologue) prefetch(g, k.pf, off, s);
  g.mov(ecx, kPage / 64);
  Label loop;
  g.L(loop);
  if (k.pf != Pf::none && k.at == PfAt::top) prefetch(g, k.pf, k.distance, s);
  switch (k.body) {
    case Body::quads4:
      for (int half = 0; half < 2; ++half) {
        for (int r = 0; r < 4; ++r) g.movq(Mmx(r), g.qword[rsi + 32 * half + 8 * r]);
        for (int r = 0; r < 4; ++r) store(32 * half + 8 * r, r);
      }
      break;
    case Body::loads8:
      for (int r = 0; r < 8; ++r) g.movq(Mmx(r), g.qword[rsi + 8 * r]);
      if (k.pf != Pf::none && k.at == PfAt::after_loads) prefetch(g, k.pf, k.distance, s);
      for (int r = 0; r < 8; ++r) store(8 * r, r);
      break;
    case Body::interleaved8:
      for (int r = 0; r < 8; ++r) {
        g.movq(Mmx(r), g.qword[rsi + 8 * r]);
        store(8 * r, r);
      }
      break;
  }
  g.add(rsi, 64);
  g.add(rdi, 64);
  g.dec(ecx);
  g.jnz(loop);
  for (Step st : k.epilogue) {
    switch (st) {
      case Step::femms: femms(g, s); break;
      case Step::emms: g.emms(); break;
      case Step::sfence: g.sfence(); break;
      case Step::frstor: fpu_restore(g, o); break;
      case Step::fsave_again: fpu_save_again(g, o); break;
    }
  }
}

Preset page_preset(std::string id, std::string printed, std::vector<std::string> aliases, Op op,
                   std::string family, std::string origin, Confidence confidence, std::string notes,
                   std::vector<std::string> features, std::string hahn_printed,
                   std::function<void(Gen&, const PresetOptions&, Subs&)> body) {
  Preset p;
  p.id = std::move(id);
  p.printed = std::move(printed);
  p.aliases = std::move(aliases);
  p.op = op;
  p.family = std::move(family);
  p.origin = std::move(origin);
  p.confidence = confidence;
  p.notes = std::move(notes);
  p.features = std::move(features);
  p.hahn_printed = std::move(hahn_printed);
  p.emit = [body](Gen& g, const PresetOptions& o, Subs& s) { region_loop(g, kPage, rdx, [&] { body(g, o, s); }); };
  return p;
}

const char* const kOriginManfred =
    "Manfred Spraul, no_prefetch in his fast.c copy, LKML <3DB82ABF.8030706@colorfullife.com> (24 Oct 2002); "
    "AMD 'Using Block Prefetch for Optimized Memory Performance' (Mike Wall, 2001)";
const char* const kOriginVogel =
    "Karl Vogel, no_prefetch2, LKML <6DED3619289CD311BCEB00508B8E1336011774C0@nt-server2.antwerp.seagha.com> "
    "(20 Jun 2003)";

const std::vector<int> kPrologue5 = {0, 64, 128, 192, 256};
const std::vector<int> kPrologue4 = {0, 64, 128, 192};

}  // namespace

void movntq_clear_page(Gen& g) {
  g.pxor(mm0, mm0);
  g.mov(ecx, kPage / 64);
  Label loop;
  g.L(loop);
  for (int k = 0; k < 8; ++k) g.movntq(g.qword[rdi + 8 * k], mm0);
  g.add(rdi, 64);
  g.dec(ecx);
  g.jnz(loop);
  g.sfence();
}

std::vector<Preset> fastc_clear_presets() {
  std::vector<Preset> v;
  v.push_back(page_preset(
      "fastc/normal_clear_page", "2.4 non MMX", {"normal_clear_page"}, Op::clear, "fastc", kOriginFastc, Confidence::high,
      "Linux 2.4 memset(page, 0, 4096) with constant arguments: EAX=0, ECX=1024, rep stosd; no cld (DF assumed "
      "clear). Hahn's athlon.c runs the same code as normal_clear_page.",
      {}, "normal_clear_page", [](Gen& g, const PresetOptions&, Subs&) { rep_stosd_clear(g, false); }));
  v.push_back(page_preset(
      "fastc/slow_zero_page", "2.4 MMX fallback", {"slow_zero_page"}, Op::clear, "fastc", kOriginFastc, Confidence::high,
      "Linux 2.4 mmx.c interrupt-context fallback: cld; rep stosd with ECX=1024, EAX=0.", {}, "slow_zero_page",
      [](Gen& g, const PresetOptions&, Subs&) { rep_stosd_clear(g, true); }));
  v.push_back(page_preset(
      "fastc/fast_clear_page", "2.4 MMX version", {"warm up run", "fast_clear_page"}, Op::clear, "fastc",
      kOriginFastc, Confidence::high,
      "Old generic Linux 2.4 MMX clear: fsave+fwait; pxor mm0; 32 iterations of 16 movq stores (128 B); femms; "
      "frstor. fast.c also runs it first as 'warm up run'.",
      {"mmx", "3dnow"}, "", [](Gen& g, const PresetOptions& o, Subs& s) { mmx_clear_movq(g, o, s, false); }));
  v.push_back(page_preset(
      "hahn/fast_clear_page", "fast_clear_page", {}, Op::clear, "hahn", kOriginHahn, Confidence::high,
      "fast.c's fast_clear_page with an sfence before femms (Hahn's athlon.c).", {"mmx", "sse", "3dnow"},
      "fast_clear_page", [](Gen& g, const PresetOptions& o, Subs& s) { mmx_clear_movq(g, o, s, true); }));
  v.push_back(page_preset(
      "fastc/faster_clear_page", "faster_clear_page", {}, Op::clear, "fastc", kOriginFastc, Confidence::high,
      "K7 clear: fsave+fwait; pxor mm0; 64 iterations of 8 movntq (64 B); sfence; femms; frstor. Hahn's athlon.c "
      "runs the same code.",
      {"mmx", "sse", "3dnow"}, "faster_clear_page",
      [](Gen& g, const PresetOptions& o, Subs& s) { mmx_clear_movntq(g, o, s); }));
  v.push_back(page_preset(
      "fastc/even_faster_clear", "even_faster_clear", {}, Op::clear, "fastc", kOriginFastc, Confidence::high,
      "Identical code to faster_clear_page in fast.c v1.6.", {"mmx", "sse", "3dnow"}, "",
      [](Gen& g, const PresetOptions& o, Subs& s) { mmx_clear_movntq(g, o, s); }));
  return v;
}

namespace {

/// A page body: mmx_copy of kernel `k`.
PageBody mmx_body(MmxCopy k) {
  return [k](Gen& g, const PresetOptions& o, Subs& s) { mmx_copy(g, o, s, k); };
}

/// The rep movsd copies (§3.5, §3.6): normal_copy_page and slow_copy_page (with cld).
void add_rep_copies(std::vector<Preset>& v) {
  v.push_back(page_preset(
      "fastc/normal_copy_page", "2.4 non MMX", {"normal_copy_page"}, Op::copy, "fastc", kOriginFastc, Confidence::high,
      "Linux 2.4 memcpy(to, from, 4096) with a constant size: ECX=1024, rep movsd; no cld, no byte tail. Hahn's "
      "athlon.c runs the same code as normal_copy_page.",
      {}, "normal_copy_page", [](Gen& g, const PresetOptions&, Subs&) { rep_movsd_copy(g, false); }));
  v.push_back(page_preset(
      "fastc/slow_copy_page", "2.4 MMX fallback", {"slow_copy_page"}, Op::copy, "fastc", kOriginFastc, Confidence::high,
      "Linux 2.4 mmx.c interrupt-context fallback: cld; rep movsd with ECX=1024.", {}, "slow_copy_page",
      [](Gen& g, const PresetOptions&, Subs&) { rep_movsd_copy(g, true); }));
}

/// fast_copy_page (§3.7, §3.8): fast.c's (3DNow! prefetch at S+320, its fsave-again
/// bug kept), then Hahn's (S+196, epilogue fixed).
void add_fast_copy_page(std::vector<Preset>& v) {
  MmxCopy k;
  k.pf = Pf::amd3dnow;
  k.prologue = kPrologue5;
  k.distance = 320;
  k.body = Body::quads4;
  k.epilogue = {Step::femms, Step::fsave_again};
  v.push_back(page_preset(
      "fastc/fast_copy_page", "2.4 MMX version", {"warm up run", "fast_copy_page"}, Op::copy, "fastc",
      kOriginFastc, Confidence::high,
      "Old generic Linux 2.4 MMX copy: fsave+fwait; 3DNow! prefetch S+0..256; 64 iterations of prefetch S+320 "
      "and 2 x (4 movq loads, 4 movq stores); femms; then fsave+fwait AGAIN instead of frstor (the fast.c v1.6 "
      "bug, kept: the x87 state is left initialised). The last 5 in-loop prefetches reach past the source page.",
      {"mmx", "3dnow"}, "", mmx_body(k)));
  k.distance = 196;
  k.epilogue = {Step::sfence, Step::femms, Step::frstor};
  v.push_back(page_preset("hahn/fast_copy_page", "fast_copy_page", {}, Op::copy, "hahn", kOriginHahn, Confidence::high,
                          "fast.c's fast_copy_page with the in-loop prefetch at S+196 and the epilogue fixed to "
                          "sfence; femms; frstor.",
                          {"mmx", "sse", "3dnow"}, "fast_copy_page", mmx_body(k)));
}

/// fast.c's prefetchnta copies: prefetchnta S+0..192 before fsave, then S+`distance`
/// at the top of each iteration of `body`, movntq stores, femms; sfence; frstor.
MmxCopy fastc_nta_copy(int distance, Body body) {
  MmxCopy k;
  k.pf = Pf::nta;
  k.prologue = kPrologue4;
  k.prologue_before_save = true;
  k.distance = distance;
  k.body = body;
  k.nt = true;
  k.epilogue = {Step::femms, Step::sfence, Step::frstor};
  return k;
}

/// faster_copy (§3.9, §3.10): fast.c's (prefetchnta S+320 at the top), then Hahn's
/// (S+196 between the loads and the stores).
void add_faster_copy(std::vector<Preset>& v) {
  MmxCopy k = fastc_nta_copy(320, Body::loads8);
  v.push_back(page_preset(
      "fastc/faster_copy", "faster_copy", {}, Op::copy, "fastc", kOriginFastc, Confidence::high,
      "prefetchnta S+0..192 before fsave; 64 iterations of prefetchnta S+320, 8 movq loads (mm0-7), 8 movntq "
      "stores; femms; sfence; frstor. Arjan: \"the last known good one\" (LKML "
      "<20010919152121.A9952@devserv.devel.redhat.com>).",
      {"mmx", "sse", "3dnow"}, "", mmx_body(k)));
  k.distance = 196;
  k.at = PfAt::after_loads;
  k.epilogue = {Step::femms, Step::frstor, Step::sfence};
  v.push_back(page_preset("hahn/faster_copy", "faster_copy", {}, Op::copy, "hahn", kOriginHahn, Confidence::high,
                          "fast.c's faster_copy with prefetchnta S+196 between the 8 loads and the 8 movntq "
                          "stores (none at the top); epilogue femms; frstor; sfence.",
                          {"mmx", "sse", "3dnow"}, "faster_copy", mmx_body(k)));
}

/// even_faster (§3.11, §3.12): fast.c's (prefetchnta S+256, interleaved pairs), then
/// Hahn's (S+200, another epilogue order).
void add_even_faster(std::vector<Preset>& v) {
  MmxCopy k = fastc_nta_copy(256, Body::interleaved8);
  v.push_back(page_preset(
      "fastc/even_faster", "even_faster", {}, Op::copy, "fastc", kOriginFastc, Confidence::high,
      "prefetchnta S+0..192 before fsave; 64 iterations of prefetchnta S+256 and 8 interleaved (movq mmk load, "
      "movntq store) pairs; femms; sfence; frstor. Arjan's \"test victim\".",
      {"mmx", "sse", "3dnow"}, "", mmx_body(k)));
  k.distance = 200;
  k.epilogue = {Step::femms, Step::frstor, Step::sfence};
  v.push_back(page_preset("hahn/even_faster", "even_faster", {}, Op::copy, "hahn", kOriginHahn, Confidence::high,
                          "fast.c's even_faster with prefetchnta S+200 and the epilogue femms; frstor; sfence.",
                          {"mmx", "sse", "3dnow"}, "even_faster", mmx_body(k)));
}

/// The block pre-read copies without prefetch instructions (§3.13): Manfred's
/// no_prefetch, then Karl Vogel's no_prefetch2.
void add_no_prefetch(std::vector<Preset>& v) {
  MmxCopy k;
  k.pre_read = PreRead::descending;
  k.body = Body::interleaved8;
  k.nt = true;
  k.epilogue = {Step::sfence, Step::emms, Step::frstor};
  v.push_back(page_preset(
      "fastc/no_prefetch", "no_prefetch", {}, Op::copy, "fastc", kOriginManfred, Confidence::high,
      "AMD block prefetch: before fsave, read one dword per 64-byte line of the source page in strictly "
      "descending line order (groups of 256 B from the page end down, +192,+128,+64,+0 in each); then fsave; 64 "
      "iterations of 8 interleaved movq/movntq pairs without prefetch instructions; sfence; emms; frstor.",
      {"mmx", "sse"}, "", mmx_body(k)));
  k.pre_read = PreRead::ascending_groups;
  k.body = Body::loads8;
  v.push_back(page_preset(
      "fastc/no_prefetch2", "no_prefetch2", {}, Op::copy, "fastc", kOriginVogel, Confidence::medium,
      "no_prefetch with the pre-read groups ascending (+192,+128,+64,+0 inside each 256-B group) and "
      "faster_copy's body (8 movq loads, then 8 movntq). The epilogue (sfence; emms; frstor) is assumed to be "
      "no_prefetch's; the spec describes only the two changes.",
      {"mmx", "sse"}, "", mmx_body(k)));
}

}  // namespace

std::vector<Preset> fastc_copy_presets() {
  std::vector<Preset> v;
  add_rep_copies(v);
  add_fast_copy_page(v);
  add_faster_copy(v);
  add_even_faster(v);
  add_no_prefetch(v);
  return v;
}

}  // namespace kex::presets_detail
