/* Open connections per peer address: what max_connections_per_client bounds. One entry per
 * address with a connection open, freed with its last connection, so the table never holds more
 * entries than there are connections. Loop thread only. */
#ifndef UMPIRE_PEER_COUNTS_H
#define UMPIRE_PEER_COUNTS_H

#include <stddef.h>

typedef struct peer_counts peer_counts;

peer_counts *peer_counts_new(size_t buckets);
void peer_counts_free(peer_counts *pc);
/* Connections of ip now open. */
size_t peer_counts_get(const peer_counts *pc, const char *ip);
/* One more connection of ip: 0, or -1 when memory runs out (nothing counted). */
int peer_counts_add(peer_counts *pc, const char *ip);
/* One connection of ip fewer (one that peer_counts_add counted). */
void peer_counts_remove(peer_counts *pc, const char *ip);

#endif
