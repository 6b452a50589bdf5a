// Self-checking semantics kernel: each out[i] is 1 when the check holds.
typedef struct { int a; float b; int arr[3]; } S;
int early(int x) {
  for (int i = 0; i < 10; i++) {
    if (i == x) return i * 10;
    switch (i) { case 7: if (x > 100) return -7; break; default: break; }
  }
  return -1;
}
int sum_arr(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
void set2(int *p) { p[0] = 5; p[1] = 6; }
float4 f4(float a) { return (float4)(a, a + 1, a + 2, a + 3); }
int fact(int n) { int r = 1; while (n > 1) { r *= n; n--; } return r; }
kernel void semantics(global int *out) {
  if (get_global_id(0) != 0) return;
  int c = 0;
  // integer semantics
  int a = -7, b = 2;
  out[c++] = (a / b == -3) && (a % b == -1);
  uint ua = 0xffffffffu;
  out[c++] = (ua + 1u == 0u) && (ua >> 31 == 1u);
  out[c++] = ((a >> 1) == -4);
  out[c++] = ((1 << 33) == 2);          // shift masked to 5 bits
  char ch = (char)200; out[c++] = (ch == -56);
  uchar uc = 250; uc += 10; out[c++] = (uc == 4);
  short sh = -3; out[c++] = ((int)sh * 2 == -6);
  long L = 0x100000000L; out[c++] = (L * 3 == 0x300000000L) && ((int)(L >> 32) == 1);
  ulong UL = 18446744073709551615UL; out[c++] = (UL / 3 == 6148914691236517205UL);
  out[c++] = ((uint)-1 > 0u) && (-1 < 0u ? 0 : 1);
  // floats and conversions
  float f = 3.75f; out[c++] = ((int)f == 3) && ((int)-f == -3);
  out[c++] = (convert_int_rte(2.5f) == 2) && (convert_int_rtp(2.1f) == 3) && (convert_int_rtn(-2.1f) == -3);
  out[c++] = (convert_uchar_sat(300) == 255) && (convert_char_sat(-300) == -128) && (convert_uchar_sat(-5) == 0);
  out[c++] = (convert_int_sat(3e10f) == 2147483647) && (convert_int_sat(-3e10f) == (-2147483647 - 1));
  out[c++] = (as_uint(1.0f) == 0x3f800000u) && (as_float(0x40000000u) == 2.0f);
  // vectors
  int4 v = (int4)(1, 2, 3, 4);
  out[c++] = (v.w == 4) && (v.s2 == 3) && (v.hi.x == 3) && (v.odd.y == 4);
  int4 cmp = v > (int4)(2);
  out[c++] = (cmp.x == 0) && (cmp.z == -1) && any(cmp) && !all(cmp);
  v.xz = (int2)(9, 8); out[c++] = (v.x == 9) && (v.y == 2) && (v.z == 8);
  float4 fv = f4(1.0f) * 2.0f; out[c++] = (fv.y == 4.0f) && (dot(fv, (float4)(1, 0, 0, 0)) == 2.0f);
  int8 e8 = (int8)(0, 1, 2, 3, 4, 5, 6, 7); int8 e8b = e8 * 2 + 1;
  out[c++] = (e8b.s7 == 15) && (e8b.s0 == 1) && (e8b.hi.s1 == 11);
  uchar16 u16 = (uchar16)(250); u16 += (uchar16)(10); out[c++] = (u16.sf == 4) && (u16.s0 == 4);
  int4 sel = select((int4)(1), (int4)(2), (int4)(0, -1, 0, -1)); out[c++] = (sel.x == 1) && (sel.y == 2);
  int4 tern = cmp ? (int4)(7) : (int4)(8); out[c++] = (tern.x == 8) && (tern.w == 7);
  float3 f3 = (float3)(1.0f, 2.0f, 3.0f); out[c++] = (cross(f3, (float3)(0, 1, 0)).z == 1.0f);
  out[c++] = (vec_step(f3) == 3) && (sizeof(f3) == 16) && (sizeof(S) == 20);
  int8 dyn = e8; int di = a + 10; out[c++] = (dyn[di] == 3);
  // control flow & functions
  out[c++] = (early(3) == 30) && (early(50) == -1) && (early(200) == -7);
  int arr[4] = {1, 2, 3, 4}; out[c++] = (sum_arr(arr, 4) == 10);
  int two[2]; set2(two); out[c++] = (two[0] == 5) && (two[1] == 6);
  out[c++] = (fact(5) == 120);
  int sw = 0; for (int i = 0; i < 4; i++) { switch (i) { case 0: sw += 1; case 1: sw += 10; break; case 2: continue; default: sw += 100; } sw += 1000; }
  out[c++] = (sw == 3121);
  int k = 0; do { k++; if (k == 3) continue; if (k > 5) break; } while (1); out[c++] = (k == 6);
  // structs
  S s = { 1, 2.5f, { 7, 8, 9 } }; S t = s; t.arr[1] = 80;
  out[c++] = (s.arr[1] == 8) && (t.arr[1] == 80) && (t.b == 2.5f);
  S *ps = &t; ps->a = 42; out[c++] = (t.a == 42) && ((*ps).arr[2] == 9);
  int *pi = &arr[1]; pi++; out[c++] = (*pi == 3) && (pi - arr == 2) && (pi[-1] == 2);
  // builtins
  out[c++] = (popcount(0xf0f0u) == 8) && (clz(1) == 31) && (clz(0) == 32) && (ctz(8) == 3);
  out[c++] = (rotate(0x80000001u, 1u) == 3u) && (rotate(0x12345678u, 0u) == 0x12345678u);
  out[c++] = (add_sat(2147483647, 1) == 2147483647) && (sub_sat(0u, 1u) == 0u) && (add_sat((uchar)250, (uchar)10) == 255);
  out[c++] = (hadd(7, 8) == 7) && (rhadd(7, 8) == 8) && (mul_hi(0x80000000u, 4u) == 2u) && (mul_hi(-2, 0x40000000) == -1);
  out[c++] = (abs(-5) == 5u) && (abs_diff(-3, 4) == 7u) && (mad24(2, 3, 4) == 10);
  out[c++] = (upsample((ushort)1, (ushort)2) == 0x10002u) && (clz((ulong)1) == 63) && (popcount((ulong)-1) == 64);
  out[c++] = (min(3, -4) == -4) && (max(3u, 4u) == 4u) && (clamp(10, 0, 5) == 5);
  out[c++] = (round(2.5f) == 3.0f) && (round(-2.5f) == -3.0f) && (round(0.49999997f) == 0.0f);
  out[c++] = (fabs(-2.0f) == 2.0f) && (floor(-1.5f) == -2.0f) && (fmin(1.0f, NAN) == 1.0f);
  out[c++] = (copysign(2.0f, -1.0f) == -2.0f) && (isnan(NAN) == 1) && (isinf(INFINITY) == 1) && (signbit(-0.0f) == 1);
  out[c++] = (bitselect(0xf0, 0x0f, 0xff) == 0x0f) && (select(1, 2, 0) == 1) && (select(1, 2, 5) == 2);
  float4 n = normalize((float4)(3, 0, 4, 0)); out[c++] = (fabs(n.x - 0.6f) < 1e-6f) && (length((float2)(3, 4)) == 5.0f);
  out[c++] = (fmod(7.5f, 2.0f) == 1.5f) && (pown(-2.0f, 3) == -8.0f) && (ldexp(1.0f, 4) == 16.0f);
  out[c++] = (isequal((float2)(1, 2), (float2)(1, 3)).y == 0) && (isless(1.0f, 2.0f) == 1);
  // sizes and work items
  out[c++] = (get_work_dim() == 1) && (get_global_size(0) == 64) && (get_global_size(1) == 1) && (get_global_size(7) == 1) && (get_local_id(5) == 0);
  out[c++] = (get_num_groups(0) * get_local_size(0) == 64) && (get_enqueued_local_size(0) == get_local_size(0));
  out[c++] = (get_global_linear_id() == 0) && (get_group_id(0) == 0) && (get_global_offset(0) == 0);
  int comma = (a = 5, a + 1); out[c++] = (comma == 6);
  int x = 5; int y = x++ + ++x; out[c++] = (y == 12) && (x == 7);
  x ^= 3; x <<= 2; x %= 7; out[c++] = (x == ((7 ^ 3) << 2) % 7);
  bool bb = 5; out[c++] = (bb == 1) && (!bb == 0);
  out[c++] = (c == 56);
}
