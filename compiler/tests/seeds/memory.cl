// Word pools, unions, printf, row pointers and async copies together.
typedef union { float f; uint u; uchar b[4]; } pun;
float rowsum(local float *row) { float s = 0; for (int i = 0; i < 8; i++) s += row[i]; return s; }
kernel void memory(global int *out, local float *scratch, pun p) {
  local float tile[8][8];
  uint lid = get_local_id(0);
  tile[lid / 8][lid % 8] = (float)lid;
  event_t e = async_work_group_copy(scratch, (global float *)out, 64, 0);
  wait_group_events(1, &e);
  local uchar *bytes = (local uchar *)scratch;
  bytes[lid] = (uchar)lid;
  float f = scratch[lid];
  uchar *fb = (uchar *)&f;
  fb[3] ^= 0x80;
  pun q = p;
  q.b[0] = 1;
  local float *row = tile[lid % 8];
  out[lid] = (int)(rowsum(row) + f) + q.u;
  if (lid == 0) printf("%d %f %v4d\n", out[0], f, (int4)(1, 2, 3, 4));
}
