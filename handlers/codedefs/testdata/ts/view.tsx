import React from "react";

interface Props {
  title: string;
}

export function Header(props: Props) {
  return <h1>{props.title}</h1>;
}

export const Footer = () => <footer />;
