#ifndef LIST_H
#define LIST_H

typedef struct node {
    int value;
    struct node *next;
} node;

enum color { RED, GREEN };

node *list_push(node *head, int value);
int list_len(const node *head);

#endif
